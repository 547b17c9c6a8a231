#!/usr/bin/env bash
# Frame determinism across compilers and optimisation levels (design.md §5):
# build gcverify with gcc -O0 and clang -O2 (and, with FULL=1, gcc -O2 and
# clang -O0 too), render both gate views of every level of the small
# synthetic corpus with each build, and fail if any frame hash differs
# between builds or any frame could not be rendered. With GOLDEN=FILE the
# hashes are also compared with that frames YAML (gcverify render --golden).
#
#   bash ci/frames_crosscheck.sh            # gcc-O0 vs clang-O2
#   FULL=1 bash ci/frames_crosscheck.sh     # all four combinations
#   JOBS=2 OUT=build-crosscheck ...         # parallelism, scratch directory
set -euo pipefail
cd "$(dirname "$0")/.."

JOBS="${JOBS:-2}"
OUT="${OUT:-build-crosscheck}"
configs=("gcc O0" "clang O2")
if [ "${FULL:-0}" = 1 ]; then
  configs=("gcc O0" "gcc O2" "clang O0" "clang O2")
fi

build_type() { # O0 -> Debug (-O0 -g), O2 -> RelWithDebInfo (-O2 -g)
  case "$1" in O0) echo Debug ;; O2) echo RelWithDebInfo ;; *) echo "bad level $1" >&2; exit 2 ;; esac
}

mkdir -p "$OUT"
corpus="$OUT/corpus-small"
first=""
for cfg in "${configs[@]}"; do
  read -r cc opt <<<"$cfg"
  if ! command -v "$cc" >/dev/null; then
    echo "frames_crosscheck: compiler '$cc' not found (apt-get install $cc)" >&2
    exit 2
  fi
  dir="$OUT/build-$cc-$opt"
  echo "== $cc -$opt: building $dir" >&2
  cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE="$(build_type "$opt")" \
        -DGC_BUILD_TESTS=OFF -DGC_BUILD_BENCH=OFF -DGC_WERROR="${WERROR:-OFF}" >/dev/null
  cmake --build "$dir" -j "$JOBS" --target gcverify >/dev/null
  if [ -z "$first" ]; then
    first="$dir"
    rm -rf "$corpus"
    "$dir/gcverify" synth --out "$corpus" --scale small >/dev/null
  fi
done

status=0
ref=""
for cfg in "${configs[@]}"; do
  read -r cc opt <<<"$cfg"
  dir="$OUT/build-$cc-$opt"
  list="$OUT/frames-$cc-$opt.txt"
  echo "== $cc -$opt: rendering" >&2
  if ! "$dir/gcverify" render --corpus "$corpus" --level all >"$list"; then
    echo "frames_crosscheck: $cc -$opt could not render every frame:" >&2
    grep ' error ' "$list" | head -20 >&2 || true
    status=1
  fi
  if [ -z "$ref" ]; then
    ref="$list"
  elif ! diff -u "$ref" "$list" >&2; then
    echo "frames_crosscheck: frame hashes differ between $(basename "$ref") and $(basename "$list")" >&2
    status=1
  fi
done

if [ -n "${GOLDEN:-}" ]; then
  while read -r level view sha; do
    [ "$sha" = error ] && continue
    if ! "$first/gcverify" render --corpus "$corpus" --level "$level" --view "$view" \
         --golden "$GOLDEN" | grep -E '^golden +(match|no golden)' >/dev/null; then
      echo "frames_crosscheck: LEVEL$level $view differs from $GOLDEN" >&2
      status=1
    fi
  done <"$ref"
fi

n=$(grep -vc ' error ' "$ref" || true)
if [ "$status" = 0 ]; then
  echo "frames_crosscheck: $n frames identical across: ${configs[*]}"
fi
exit "$status"
