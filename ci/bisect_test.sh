#!/usr/bin/env bash
# gcverify bisect on a scratch repository whose history re-introduces one
# catalogued fault (shrub_stride, caught by shrub.span_o_class) at a known
# commit, with a commit that does not build before it (skipped, exit 125):
#   A base (good)  B docs  C does not build  D builds again  E fault  F docs
# Passes when bisect names E, and the scratch checkout is back on its branch
# with a clean tree. Usage: ci/bisect_test.sh GCVERIFY OUTDIR
set -euo pipefail
gcv=$(realpath "$1")
out=$(realpath -m "$2")
src=$(cd "$(dirname "$0")/.." && pwd)
scratch="$out/scratch"
rm -rf "$scratch"
mkdir -p "$scratch"
# the checkout's tracked and untracked-but-not-ignored files, as they are now
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
   xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$scratch"
export GIT_AUTHOR_NAME=gcverify GIT_AUTHOR_EMAIL=ci@gcverify.invalid
export GIT_COMMITTER_NAME=gcverify GIT_COMMITTER_EMAIL=ci@gcverify.invalid
g() { git -C "$scratch" "$@"; }
g init -q -b main
g add -A && g commit -q -m "A: base"
good=$(g rev-parse HEAD)
echo "scratch note" >> "$scratch/docs/fault-catalogue.md"
g commit -q -am "B: a documentation change"
echo '#error "a commit that does not build"' >> "$scratch/harness/cli/cmd_list.c"
g commit -q -am "C: does not build"
sed -i '$d' "$scratch/harness/cli/cmd_list.c"
g commit -q -am "D: builds again"
f="$scratch/decoders/dec_shrub.c"
before=$(sha256sum "$f")
sed -i 's/GC_FAULT(lv, shrub_stride) ? SHRUB_CLASS_STRIDE_WRONG : SHRUB_CLASS_STRIDE/SHRUB_CLASS_STRIDE_WRONG/' "$f"
[ "$before" != "$(sha256sum "$f")" ] || { echo "bisect_test: the shrub_stride site moved: update the sed"; exit 1; }
g commit -q -am "E: re-introduce the shrub stride fault"
expect=$(g rev-parse HEAD)
echo "another note" >> "$scratch/docs/fault-catalogue.md"
g commit -q -am "F: another documentation change"
bad=$(g rev-parse HEAD)

set +e
"$gcv" bisect --repo "$scratch" --good "$good" --bad "$bad" --invariant shrub.span_o_class \
  --build-dir "$out/scratch-build" -- --scale small --no-frames --levels 0-2 | tee "$out/bisect.txt"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || { echo "bisect_test: gcverify bisect exited $rc"; exit 1; }
grep -q "^first bad commit: $expect E: re-introduce the shrub stride fault$" "$out/bisect.txt" ||
  { echo "bisect_test: expected first bad commit $expect"; exit 1; }
grep -q "does not build: skipped" "$out/bisect.txt" ||
  { echo "bisect_test: the commit that does not build was not tested and skipped"; exit 1; }
# the checkout is restored: on main, at F, clean
[ "$(g symbolic-ref HEAD)" = refs/heads/main ] || { echo "bisect_test: not back on main"; exit 1; }
[ "$(g rev-parse HEAD)" = "$bad" ] || { echo "bisect_test: HEAD not restored"; exit 1; }
[ -z "$(g status --porcelain --untracked-files=no)" ] || { echo "bisect_test: tree not clean"; exit 1; }
echo "bisect_test: ok (first bad commit $expect, the unbuildable commit skipped, checkout restored)"
