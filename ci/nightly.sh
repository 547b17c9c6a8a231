#!/usr/bin/env bash
# The nightly job (docs/nightly.md), on the small synthetic corpus: three
# sweeps into one history (clean, with an injected fault, clean again) built
# with the fault switches as ci/faults.sh builds them; `history` and
# `last-good` output checked after each; the HTML report of the faulty sweep
# loaded in headless Chromium (the DOM checked, a screenshot kept); the
# bisect of a scratch repository (ci/bisect_test.sh); and `merge --html` of
# two shards equal to the single run's page.
# Artifacts in $GC_NIGHTLY_OUT (default build-faults/nightly): history.db,
# report.html (+ report.png), clean.html, bisect.txt.
# GC_NIGHTLY_SKIP_BISECT=1 skips the bisect (it builds gcverify ~4 times).
set -euo pipefail
cd "$(dirname "$0")/.."
GC_DEPS_CHROMIUM=1 bash ci/deps.sh
make build BUILD=build-faults FAULTS=ON WERROR="${WERROR:-OFF}" >/dev/null
gcv=./build-faults/gcverify
out=${GC_NIGHTLY_OUT:-build-faults/nightly}
rm -rf "$out"
mkdir -p "$out"
db="$out/history.db"
fail() { echo "ci/nightly.sh: $*" >&2; exit 1; }
sweep() { # expected-exit args...
  local want=$1; shift
  set +e
  "$gcv" sweep --scale small --history "$db" --quiet "$@"
  local rc=$?
  set -e
  [ "$rc" -eq "$want" ] || fail "sweep $* exited $rc, expected $want"
}

# 1: clean; --frames-out also fills the frame image store, so the faulty run
# finds its expected images
sweep 0 --frames-out "$out/frames" --html "$out/clean.html"
# 2: common_only (catalogued; caught by tfrag.vert_count; changes the ground
# view of every level)
sweep 1 --inject-fault common_only --html "$out/report.html"
"$gcv" last-good tfrag.vert_count --level 3 --history "$db" | tee "$out/last-good-2.txt"
grep -q '^last good: run 1 ' "$out/last-good-2.txt" || fail "last-good after the fault: not run 1"
grep -q '^first bad: run 2 ' "$out/last-good-2.txt" || fail "last-good after the fault: not run 2"
"$gcv" last-good --frame 3:ground --history "$db" | grep -q '^first bad: run 2 ' ||
  fail "last-good of frame 3:ground: first bad is not run 2"
# 3: clean again
sweep 0 --html "$out/clean-again.html"
"$gcv" last-good tfrag.vert_count --level 3 --history "$db" | tee "$out/last-good-3.txt"
grep -q '^last good: run 3 ' "$out/last-good-3.txt" || fail "last-good after the fix: not run 3"
grep -q '^first bad: none' "$out/last-good-3.txt" || fail "last-good after the fix: a first bad"
"$gcv" history --invariant tfrag.vert_count --level 3 --history "$db" | tee "$out/history.txt"
[ "$(wc -l < "$out/history.txt")" -eq 3 ] || fail "history: not 3 runs"
awk 'NR==1 && !/failed 0 of /{exit 1} NR==2 && /failed 0 of /{exit 1} NR==3 && !/failed 0 of /{exit 1}' \
  "$out/history.txt" || fail "history: not clean, failed, clean"
"$gcv" history --metric 3:tfrag.positions --history "$db" | grep -c 'changed against the baseline' |
  grep -qx 1 || fail "history of metric tfrag.positions: not changed in exactly one run"

# merge --html: the page of two merged shards is the single run's, byte for byte
"$gcv" sweep --scale small --quiet --html "$out/one.html" --json "$out/one.json"
for k in 1 2; do "$gcv" sweep --scale small --quiet --shard "$k/2" --json "$out/shard-$k.json"; done
"$gcv" merge "$out/shard-1.json" "$out/shard-2.json" -o "$out/merged.json" --html "$out/merged.html"
cmp "$out/one.html" "$out/merged.html" || fail "merge --html differs from the single run's page"

# the page in a real browser (JavaScript on: ?failing=1 presets the filter)
url="file://$(realpath "$out/report.html")"
chrome=(chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars)
timeout 300 "${chrome[@]}" --dump-dom "$url?failing=1" > "$out/report.dom.html" 2>"$out/chromium.log" ||
  fail "chromium --dump-dom failed (see $out/chromium.log)"
python3 - "$out/report.dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
def need(cond, what):
    if not cond:
        sys.exit("ci/nightly.sh: DOM check failed: " + what)
# the failing cell of the injected fault, linking to its samples
need(re.search(r'<td class="error" title="tfrag\.vert_count level 3: \d+ of \d+ failed">'
               r'<a href="#r-tfrag\.vert_count-3">\d+</a></td>', dom), "failing cell tfrag.vert_count@3")
sec = dom.split('<section class="cell" id="r-tfrag.vert_count-3">', 1)
need(len(sec) == 2, "the cell's section")
sec = sec[1].split("</section>", 1)[0]
need(re.search(r'<tr class="sample"><td>3</td><td>tfrag\.\w+</td><td>\d+</td>', sec), "a sample row")
need("why:" in sec and "invariants/tfrag.yaml:" in sec and 'class="yaml"' in sec, "why and YAML source")
# the frame comparison: actual, expected and diff images, with a pixel count
fr = dom.split('<section class="framecmp" id="frame-3-ground">', 1)
need(len(fr) == 2, "frame 3 ground section")
fr = fr[1].split("</section>", 1)[0]
for kind in ("actual", "expected", "diff"):
    need(re.search(r'<img class="%s" alt="level 3 ground %s" src="data:image/png;base64,' % (kind, kind), fr),
         "frame 3 ground %s image" % kind)
need(re.search(r'<span class="pixels">[1-9]\d*</span> pixels changed', fr), "pixel count")
# the filter ran (JavaScript): only the failing invariants are shown
m = re.search(r'id="f-count">(\d+) of (\d+) invariants shown', dom)
need(m and 0 < int(m.group(1)) < int(m.group(2)), "filter count")
need(dom.count('class="inv hidden"') == int(m.group(2)) - int(m.group(1)), "hidden rows")
# the summary line equals the terminal's
need(re.search(r'<pre id="summary" class="FAILED">FAILED 27 levels, ', dom), "summary line")
# the history strip: three runs
need(dom.count('<li>run ') == 2, "history strip of 2 runs (the page is written by run 2)")
print("ci/nightly.sh: DOM checks passed")
PY
timeout 300 "${chrome[@]}" --window-size=1400,1800 --screenshot="$out/report.png" "$url?failing=1" \
  2>>"$out/chromium.log" || fail "chromium --screenshot failed"
[ -s "$out/report.png" ] || fail "no screenshot"

if [ "${GC_NIGHTLY_SKIP_BISECT:-0}" != 1 ]; then
  bash ci/bisect_test.sh "$gcv" "$out"
fi
echo "ci/nightly.sh: ok (artifacts in $out)"
