#!/usr/bin/env bash
# What a user of the gate relies on, end to end (issue 13), on the small
# synthetic corpus: a --levels subset passes against the full baseline; a
# mistyped path and an empty selection are exit 2, a missing corpus exit 3;
# `--json -` is the JSON alone; a frame regression gets actual, expected (from
# the frame image store) and diff images with the pixel count in every
# report; `show` prints the rows an expression selects; `diff --format json`
# lists rows newly failing; `merge --junit` combines shards and names a
# missing one; a mistyped option gets the nearest name and --opt=value works.
# Every JSON report is checked against docs/schemas/, every
# JUnit report against ci/schemas/junit-10.xsd.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
gcv=./$BUILD/gcverify
out=$BUILD/ci-reports/ux
rm -rf "$out"
mkdir -p "$out"
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
schema_report() { $py ci/validate_reports.py docs/schemas/report.schema.json "$@"; }
schema_diff() { $py ci/validate_reports.py docs/schemas/diff.schema.json "$@"; }
junit_ok() { xmllint --noout --schema ci/schemas/junit-10.xsd "$@"; }
expect_rc() { # expect_rc WANT DESCRIPTION CMD...
  local want=$1 what=$2 rc=0
  shift 2
  "$@" >"$out/last.out" 2>"$out/last.err" || rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: $what: exit $rc, expected $want"; cat "$out/last.out" "$out/last.err"; exit 1
  fi
  echo "ok: $what (exit $rc)"
}
export GC_FRAME_STORE=$PWD/$out/store

echo "== --levels subsets against the full baseline"
expect_rc 0 "sweep --levels 0-2" $gcv sweep --scale small --levels 0-2 --quiet --json "$out/levels.json" --junit "$out/levels.junit.xml"
expect_rc 0 "sweep --levels 5,9" $gcv sweep --scale small --levels 5,9 --quiet
schema_report "$out/levels.json"
junit_ok "$out/levels.junit.xml"

echo "== help CMD and mistyped commands"
expect_rc 0 "help sweep" $gcv help sweep
$gcv sweep --help >"$out/sweep.help"
cmp -s "$out/last.out" "$out/sweep.help" || { echo "FAIL: 'help sweep' differs from 'sweep --help'"; exit 1; }
expect_rc 2 "mistyped command" $gcv sweeep
grep -q "unknown command 'sweeep' (did you mean 'sweep'?)" "$out/last.err" || { echo "FAIL: no suggestion for 'sweeep'"; cat "$out/last.err"; exit 1; }
expect_rc 2 "help of a mistyped command" $gcv help dump-textur
grep -q "did you mean 'dump-texture'" "$out/last.err" || { echo "FAIL: no suggestion for 'dump-textur'"; exit 1; }

expect_rc 2 "mistyped option" $gcv sweep --level 3
grep -qx "gcverify sweep: unknown option '--level' (did you mean '--levels'?)" "$out/last.err" || { echo "FAIL: no suggestion for '--level'"; cat "$out/last.err"; exit 1; }
expect_rc 0 "--opt=value" $gcv sweep --scale=small --levels=0 --no-frames --quiet --json="$out/eq.json"
test -s "$out/eq.json" || { echo "FAIL: --json=F wrote nothing"; exit 1; }

echo "== mistyped paths and empty selections"
expect_rc 2 "--baseline that does not exist" $gcv sweep --scale small --levels 0 --quiet --baseline "$out/no-such-metrics.yaml"
grep -q "no-such-metrics.yaml does not exist" "$out/last.err"
expect_rc 2 "--frames-golden that does not exist" $gcv sweep --scale small --levels 0 --quiet --frames-golden "$out/no-such-frames.yaml"
expect_rc 2 "--only selecting nothing" $gcv sweep --scale small --levels 0 --quiet --only 'zzz*'
grep -q "selects none" "$out/last.err"
expect_rc 3 "--corpus that does not exist" $gcv sweep --corpus "$out/no-such-corpus" --quiet

echo "== --json - is the JSON alone"
expect_rc 0 "sweep --json -" $gcv sweep --scale small --levels 0 --json -
cp "$out/last.out" "$out/stdout.json"
schema_report "$out/stdout.json"
grep -q "^sweep: [0-9]* passed, 0 failed" "$out/last.err"

echo "== a frame regression, reviewed with the image store"
expect_rc 0 "sweep --frames-out fills the store" $gcv sweep --scale small --levels 0 --quiet --frames-out "$out/frames" --json "$out/level0.json"
# a golden that says level 1's ground view is level 0's picture
$py - "$out/level0.json" "$out/frames-golden.yaml" <<'PY'
import json, sys
frames = {f["view"]: f for f in json.load(open(sys.argv[1]))["frames"]}
g = frames["ground"]
with open(sys.argv[2], "w") as f:
    f.write("frames:\n  - level: 1\n    view: ground\n    sha256: %s\n    manifest: \"%s\"\n"
            % (g["sha256"], g["manifest"]))
PY
expect_rc 1 "sweep with a regressed frame" $gcv sweep --scale small --levels 1 --frames-golden "$out/frames-golden.yaml" --golden-images "$out/review" --json "$out/regressed.json" --junit "$out/regressed.junit.xml" --markdown "$out/regressed.md"
grep -q "^FRAME level 1 ground: regressed" "$out/last.out"
grep -q "pixels changed: $out/review/LEVEL1_ground_diff.png" "$out/last.out"
grep -q "^sweep: [0-9]* passed, 1 failed" "$out/last.out"
schema_report "$out/regressed.json"
junit_ok "$out/regressed.junit.xml"
$py - "$out/regressed.json" <<'PY'
import json, os, sys
f = [f for f in json.load(open(sys.argv[1]))["frames"] if f["view"] == "ground"][0]
assert f["status"] == "regressed", f
for k in ("actual", "expected", "diff"):
    assert f["images"][k] and os.path.exists(f["images"][k]), (k, f["images"])
assert f["pixels_changed"] and f["pixels_changed"] > 0, f
print("ok: review images and %d changed pixels in the JSON" % f["pixels_changed"])
PY
grep -q "LEVEL1_ground_diff.png" "$out/regressed.md"
grep -q "pixels changed: " "$out/regressed.junit.xml"

echo "== show"
expect_rc 0 "show --level 3 tfrag.vertex --where 'row == 332'" $gcv show --scale small --level 3 tfrag.vertex --where 'row == 332' --format json
$py -c "import json,sys; r=json.load(open(sys.argv[1])); assert [x['row'] for x in r] == [332], r" "$out/last.out"
expect_rc 0 "show with a link and csv" $gcv show --scale small --level 3 tfrag.vertex --where 'patch.row == 2 and row < 3000' --columns patch_row,x --format csv
test "$(tail -n +2 "$out/last.out" | cut -d, -f2 | sort -u)" = 2
expect_rc 2 "show with a mistyped column" $gcv show --scale small --level 3 tfrag.vertex --where 'patch.radiu > 1'
grep -q "did you mean 'radius'" "$out/last.err"

echo "== diff --format json"
expect_rc 1 "diff of the --levels 0-2 report against the regressed one" $gcv diff "$out/levels.json" "$out/regressed.json" --format json
cp "$out/last.out" "$out/diff.json"
schema_diff "$out/diff.json"
expect_rc 0 "diff of a report with itself" $gcv diff "$out/levels.json" "$out/levels.json" --format json

echo "== merge --junit"
for k in 1 2; do
  expect_rc 0 "sweep --shard $k/2" $gcv sweep --scale small --tier gate --shard $k/2 --quiet --no-frames --json "$out/shard-$k.json" --timings "$out/shard-$k.timings.json"
done
expect_rc 0 "merge of both shards" $gcv merge "$out/shard-2.json" "$out/shard-1.json" -o "$out/merged.json" --junit "$out/merged.junit.xml" --markdown "$out/merged.md" --timings-from "$out/shard-1.timings.json" --timings-from "$out/shard-2.timings.json"
schema_report "$out/shard-1.json" "$out/shard-2.json" "$out/merged.json"
junit_ok "$out/merged.junit.xml"
expect_rc 2 "merge with a shard missing" $gcv merge "$out/shard-1.json" -o "$out/merged-partial.json"
grep -q "shard 2/2 missing" "$out/last.err"
echo "ux: passed"
