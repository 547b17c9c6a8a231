#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 18's process-level figures of `gcverify sweep`, as a user sees them: whole processes,
# timed from outside (/usr/bin/time), not bench_sweep's repeated sweeps inside one process
# (those reuse the memory of the run before). Prints figures only; asserts nothing.
#
#   --jobs 2 wall: the median of N back-to-back runs (and the min and max)
#   --jobs 1 wall: the same; the ratio of the two medians is the scaling figure
#   peak RSS: the largest "maximum resident set size" of every run
#   cold --jobs 2: runs that each start after a pause (--pause, 3 s): on a VM whose balloon
#     reports freed memory to the host (virtio_balloon free page reporting, ~2 s after the
#     memory is freed), every page such a run touches first is backed by the host again, at
#     ~1-2 ms a MB of kernel time (docs/performance.md, "The sweep from outside")
#
# usage: bench/sweep_figures.sh [--build DIR] [--runs N] [--cold N] [--pause S] [-- SWEEP ARGS]
# default: --build build, --runs 5, --cold 3, --pause 3, sweep args --scale retail
set -euo pipefail

build=build
runs=5
cold=3
pause=3
sweep_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --cold) cold=$2; shift 2 ;;
    --pause) pause=$2; shift 2 ;;
    --) shift; sweep_args=("$@"); break ;;
    -h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sweep_figures.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#sweep_args[@]} -eq 0 ] && sweep_args=(--scale retail)
bin=$build/gcverify
if [ ! -x "$bin" ]; then
  echo "sweep_figures.sh: $bin is not built (make build, or --build DIR)" >&2
  exit 2
fi
if [ ! -x /usr/bin/time ]; then
  echo "sweep_figures.sh: needs /usr/bin/time (Debian package 'time')" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one run: appends "wall user sys maxrss_kib" to $tmp/$1; a failed sweep (exit >= 2) stops
one() {
  local tag=$1; shift
  local rc=0
  /usr/bin/time -o "$tmp/t" -f '%e %U %S %M' "$bin" sweep --quiet "${sweep_args[@]}" "$@" \
    >/dev/null 2>"$tmp/err" || rc=$?
  if [ "$rc" -ge 2 ]; then
    echo "sweep_figures.sh: gcverify sweep exited $rc:" >&2
    cat "$tmp/err" >&2
    exit 1
  fi
  tail -1 "$tmp/t" >>"$tmp/$tag"
}
# median, min and max of the wall (column 1), the max of the peak RSS (column 4)
summary() {
  sort -n "$tmp/$1" | awk '{w[NR]=$1; if ($4 > r) r = $4}
    END {m = int((NR + 1) / 2); printf "%.3f %.3f %.3f %d", w[m], w[1], w[NR], r}'
}
# the medians of user and sys CPU (columns 2 and 3), each sorted on its own
cpu() {
  local u s
  u=$(cut -d' ' -f2 "$tmp/$1" | sort -n | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}')
  s=$(cut -d' ' -f3 "$tmp/$1" | sort -n | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}')
  echo "$u / $s"
}

model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || true)
echo "sweep_figures: $(nproc) cores online, ${model:-unknown CPU}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sweep_figures: gcverify sweep ${sweep_args[*]}; $runs runs each, back to back, after one untimed run"
one warm --jobs 2
for _ in $(seq "$runs"); do one j2 --jobs 2; done
for _ in $(seq "$runs"); do one j1 --jobs 1; done
read -r m2 lo2 hi2 r2 <<<"$(summary j2)"
read -r m1 lo1 hi1 r1 <<<"$(summary j1)"
printf 'jobs 2: wall median %s s (%s - %s), user / sys median %s s, peak RSS %s KiB\n' \
  "$m2" "$lo2" "$hi2" "$(cpu j2)" "$r2"
printf 'jobs 1: wall median %s s (%s - %s), user / sys median %s s, peak RSS %s KiB\n' \
  "$m1" "$lo1" "$hi1" "$(cpu j1)" "$r1"
awk -v a="$m1" -v b="$m2" 'BEGIN {printf "jobs 1 / jobs 2 (medians): %.2fx\n", a / b}'
if [ "$cold" -gt 0 ]; then
  for _ in $(seq "$cold"); do
    sleep "$pause"
    one cold --jobs 2
  done
  read -r mc loc hic rc <<<"$(summary cold)"
  printf 'jobs 2 after a %s s pause: wall median %s s (%s - %s), user / sys median %s s, peak RSS %s KiB\n' \
    "$pause" "$mc" "$loc" "$hic" "$(cpu cold)" "$rc"
fi
echo "sweep_figures: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
