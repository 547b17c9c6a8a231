#!/usr/bin/env bash
# The installed gcverify and libgcformats, away from the checkout (issue 14):
#  1. `cmake --install` into a temporary prefix, then the prefix is moved
#     (copied elsewhere, the original deleted): everything must be relocatable;
#  2. the installed gcverify runs `sweep --scale small` with an empty HOME and
#     cwd and no variable naming the checkout, under strace: no file under
#     the source tree may be touched, its data must come from share/gcverify,
#     and its report must equal the build tree's;
#  3. bless: refused without --baseline, and with one writes only beside it;
#  4. examples/level_tables/level_tables.c built through
#     `pkg-config --cflags --libs gcformats` (shared and static) and through
#     CMake's find_package(gcformats); each decodes one level;
#  5. only gc_* symbols leave libgcformats.so;
#  6. gcverify(1) and the bash/zsh completions are installed and say what the
#     installed binary's --help says (tests/cli_docs.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd -P)
BUILD=${BUILD:-build}
gcv_build=$src/$BUILD/gcverify
tmp=$(mktemp -d /tmp/gcverify-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "ci/install.sh: $*" >&2; exit 1; }

echo "== install into a temporary prefix, then move it"
cmake --install "$BUILD" --prefix "$tmp/prefix" >/dev/null
cp -a "$tmp/prefix" "$tmp/moved"
rm -rf "$tmp/prefix"
P=$tmp/moved
for f in bin/gcverify share/gcverify/invariants/tfrag.yaml share/gcverify/golden/metrics-small.yaml \
         share/gcverify/golden/LEDGER.md include/gcformats/gcformats.h lib/libgcformats.a \
         lib/pkgconfig/gcformats.pc lib/cmake/gcformats/gcformatsConfig.cmake \
         share/man/man1/gcverify.1 share/bash-completion/completions/gcverify \
         share/zsh/site-functions/_gcverify; do
  [ -e "$P/$f" ] || fail "the install lacks $f"
done
# the installed page and completions say what the installed binary says
mkdir -p "$tmp/docs-check"
cp "$P/share/man/man1/gcverify.1" "$P/share/zsh/site-functions/_gcverify" "$tmp/docs-check/"
cp "$P/share/bash-completion/completions/gcverify" "$tmp/docs-check/gcverify.bash"
bash tests/cli_docs.sh "$P/bin/gcverify" "$tmp/docs-check" >/dev/null ||
  fail "the installed man page or completions differ from the installed gcverify's --help"
ls "$P"/lib/libgcformats.so.* >/dev/null 2>&1 || fail "the install lacks libgcformats.so.*"
( cd "$P" && find . -type f -exec sha256sum {} + | sort ) >"$tmp/prefix.before"

# A clean environment: no variable names the checkout (PATH has only system dirs).
mkdir -p "$tmp/home" "$tmp/cwd"
clean_env=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$tmp/home" LANG=C.UTF-8)
if "${clean_env[@]}" env | grep -F "$src" >/dev/null; then fail "the clean environment names $src"; fi

echo "== the installed gcverify: sweep --scale small, away from the checkout"
(cd "$tmp/cwd" && "${clean_env[@]}" strace -f -qq -o "$tmp/trace" -e trace=%file \
   "$P/bin/gcverify" sweep --scale small --jobs 2 --quiet --json "$tmp/installed.json") ||
  fail "the installed sweep failed (exit $?)"
if grep -F "$src" "$tmp/trace" >"$tmp/touched"; then
  head -5 "$tmp/touched" >&2
  fail "the installed gcverify touched $(wc -l <"$tmp/touched") paths under the source tree $src"
fi
grep -F -q "$P/share/gcverify/invariants" "$tmp/trace" ||
  fail "the installed gcverify did not read its invariants from $P/share/gcverify"
grep -F -q "share/gcverify/golden/metrics-small.yaml" "$tmp/trace" ||
  fail "the installed gcverify did not read its baseline from share/gcverify"
"$gcv_build" sweep --scale small --jobs 2 --quiet --json "$tmp/build.json" ||
  fail "the build-tree sweep failed"
cmp -s "$tmp/build.json" "$tmp/installed.json" ||
  { diff "$tmp/build.json" "$tmp/installed.json" | head -20 >&2; fail "installed and build-tree reports differ"; }
echo "installed sweep: passed, touched nothing under the checkout, report equal to the build tree's"

echo "== bless from the installed copy"
if (cd "$tmp/cwd" && "${clean_env[@]}" "$P/bin/gcverify" bless --scale small --no-frames \
      --reason "install check" >"$tmp/bless.out" 2>&1); then
  fail "bless without --baseline was accepted by an installed gcverify"
fi
grep -q "pass --baseline" "$tmp/bless.out" || { cat "$tmp/bless.out" >&2; fail "bless refusal does not say what to pass"; }
mkdir -p "$tmp/mine"
(cd "$tmp/cwd" && "${clean_env[@]}" "$P/bin/gcverify" bless --scale small --no-frames \
   --baseline "$tmp/mine/metrics-small.yaml" --reason "install check" >/dev/null 2>&1) ||
  fail "bless with --baseline failed"
[ -s "$tmp/mine/metrics-small.yaml" ] && [ -s "$tmp/mine/LEDGER.md" ] ||
  fail "bless did not write the baseline and LEDGER.md beside it"
( cd "$P" && find . -type f -exec sha256sum {} + | sort ) >"$tmp/prefix.after"
cmp -s "$tmp/prefix.before" "$tmp/prefix.after" || fail "something wrote into the install prefix"
echo "bless: refused without --baseline; wrote only into $tmp/mine"

echo "== libgcformats: pkg-config and find_package"
level=$(ls "$tmp/home/.cache/gcverify"/synth-*-small-seed1/LEVEL3.WAD)
cp examples/level_tables/level_tables.c examples/level_tables/CMakeLists.txt "$tmp/"
export PKG_CONFIG_PATH=$P/lib/pkgconfig
[ "$(pkg-config --modversion gcformats)" = "$(sed -n 's/^project(gcverify VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)" ] ||
  fail "pkg-config --modversion gcformats is not the project version"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/lt-shared" "$tmp/level_tables.c" $(pkg-config --cflags --libs gcformats)
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/lt-static" "$tmp/level_tables.c" $(pkg-config --cflags gcformats) \
   -L"$P/lib" -Wl,-Bstatic -lgcformats -Wl,-Bdynamic $(pkg-config --static --libs-only-l gcformats | sed 's/-lgcformats//')
check_run() {
  grep -q "^level.header  *1$" "$1" && grep -q "^tfrag.patch  *[1-9]" "$1" && grep -q "^first error: ok$" "$1" ||
    { cat "$1" >&2; fail "$2 did not decode $level"; }
}
LD_LIBRARY_PATH=$P/lib "$tmp/lt-shared" "$level" >"$tmp/out-shared"; check_run "$tmp/out-shared" "the pkg-config (shared) build"
LD_LIBRARY_PATH=$P/lib ldd "$tmp/lt-shared" | grep "libgcformats.so.[0-9.]* => $P/lib" >/dev/null || fail "lt-shared does not use $P/lib's libgcformats.so"
"$tmp/lt-static" "$level" >"$tmp/out-static"; check_run "$tmp/out-static" "the static build"
cmp -s "$tmp/out-shared" "$tmp/out-static" || fail "shared and static builds print different tables"
cmake -S "$tmp" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$P" >/dev/null
cmake --build "$tmp/cmake-build" >/dev/null
LD_LIBRARY_PATH=$P/lib "$tmp/cmake-build/level_tables" "$level" >"$tmp/out-cmake"
cmp -s "$tmp/out-shared" "$tmp/out-cmake" || fail "the find_package build prints different tables"
echo "libgcformats: pkg-config (shared, static) and find_package builds decode $(basename "$level") ($(wc -l <"$tmp/out-shared") tables)"

echo "== symbols of libgcformats.so"
bash tests/library_symbols.sh "$P"/lib/libgcformats.so.*.*.*

echo "== docs/library.md shows the example CI builds"
cmp -s <(sed -n '/^```c$/,/^```$/p' docs/library.md | sed '1d;$d') examples/level_tables/level_tables.c ||
  fail "docs/library.md's listing differs from examples/level_tables/level_tables.c"
echo "docs/library.md: listing is examples/level_tables/level_tables.c"
