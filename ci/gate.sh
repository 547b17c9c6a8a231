#!/usr/bin/env bash
# CI gates beyond the unit tests:
#  1. the gate-tier sweep on the small synthetic corpus (fails on exit code != 0),
#     with JUnit/Markdown/JSON reports kept in build/ci-reports/;
#  2. the same sweep with --jobs 1 and --jobs 2 must write byte-identical JSON;
#     then the edge corpus (legal extremes) and the retail-shaped corpus against their
#     blessed metrics, column digests and frames;
#  3. frame hashes identical under gcc and clang, -O0 and -O2 (ci/frames_crosscheck.sh);
#  4. the fault catalogue: every fault caught by its named invariant (ci/faults.sh);
#  5. what a user relies on (ci/ux.sh): --levels, mistyped paths, --json -, a frame
#     regression reviewed with the image store, show, diff, merge --junit;
#  6. the sample CI configurations validated offline (ci/validate_ci.sh);
#  7. the installed tool and library away from the checkout (ci/install.sh), and
#     the synthetic disc image swept like the directory;
#  every JSON report checked against docs/schemas/, every JUnit report against
#  ci/schemas/junit-10.xsd; and first, that every tracked .c/.h is clang-formatted.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
out=$BUILD/ci-reports
mkdir -p "$out"
gcv=./$BUILD/gcverify
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3 # Debian's, with python3-jsonschema

echo "== source layout (clang-format ${CLANG_FORMAT_VERSION:-14})"
make check-format >/dev/null || { make check-format || true; echo "run: make format"; exit 1; }

echo "== gate sweep (small synthetic corpus)"
$gcv sweep --scale small --tier gate --jobs 2 --quiet \
  --json "$out/gate.json" --junit "$out/gate.junit.xml" --markdown "$out/gate.md" || {
  rc=$?; cat "$out/gate.md" 2>/dev/null || true; echo "gate sweep failed (exit $rc)"; exit 1; }
$gcv sweep --scale small --tier gate --jobs 1 --quiet --json "$out/gate-j1.json" || true
cmp "$out/gate.json" "$out/gate-j1.json" || { echo "reports differ between --jobs 1 and --jobs 2"; exit 1; }
echo "gate sweep: passed; reports identical for --jobs 1 and 2"
$py ci/validate_reports.py docs/schemas/report.schema.json "$out/gate.json" "$out/gate-j1.json"
xmllint --noout --schema ci/schemas/junit-10.xsd "$out/gate.junit.xml"

echo "== coverage: every decoded column guarded by an invariant, a metric or its blessed digest;"
echo "   every column of the mission's kinds read by an invariant"
for scale in small edge; do
  $gcv coverage --check --check-kinds --baseline golden/metrics-$scale.yaml >/dev/null ||
    { echo "coverage --check --check-kinds failed against golden/metrics-$scale.yaml"; exit 1; }
done
echo "coverage: no column guarded by nothing, no mission-kind column read by no invariant"

echo "== edge synthetic corpus against golden/metrics-edge.yaml and golden/frames-edge.yaml"
$gcv sweep --scale edge --tier gate --jobs 2 --quiet --json "$out/edge.json" \
  --junit "$out/edge.junit.xml" --markdown "$out/edge.md" || {
  rc=$?; cat "$out/edge.md" 2>/dev/null || true; echo "edge sweep failed (exit $rc)"; exit 1; }
$gcv sweep --scale edge --tier gate --jobs 1 --quiet --json "$out/edge-j1.json" || true
cmp "$out/edge.json" "$out/edge-j1.json" || { echo "edge reports differ between --jobs 1 and 2"; exit 1; }
echo "edge sweep: passed; reports identical for --jobs 1 and 2"
$py ci/validate_reports.py docs/schemas/report.schema.json "$out/edge.json"
xmllint --noout --schema ci/schemas/junit-10.xsd "$out/edge.junit.xml"

echo "== retail-shaped synthetic corpus against golden/metrics.yaml and golden/frames.yaml"
$gcv sweep --tier gate --jobs 2 --quiet --json "$out/retail.json" --markdown "$out/retail.md" || {
  rc=$?; cat "$out/retail.md" 2>/dev/null || true; echo "retail sweep failed (exit $rc)"; exit 1; }
echo "retail sweep: passed"
$py ci/validate_reports.py docs/schemas/report.schema.json "$out/retail.json"

echo "== what a user relies on (ci/ux.sh)"
BUILD=$BUILD bash ci/ux.sh
echo "== sample CI configurations (ci/validate_ci.sh)"
bash ci/validate_ci.sh

echo "== disc image: synth --iso swept like the directory"
rm -rf "$out/iso-dir" "$out/small.iso"
$gcv synth --scale small --out "$out/iso-dir" --iso "$out/small.iso" >/dev/null
$gcv sweep --corpus "$out/iso-dir" --jobs 2 --quiet --json "$out/dir.json" \
  --baseline none --frames-golden golden/frames-small.yaml || { echo "directory sweep failed"; exit 1; }
$gcv sweep --corpus "$out/small.iso" --jobs 2 --quiet --json "$out/iso.json" \
  --baseline none --frames-golden golden/frames-small.yaml || { echo "image sweep failed"; exit 1; }
# The image's report = the directory's + its label + one passing disc.toc
# result per level (README, "Disc images"); nothing else may differ.
[ "$(grep -c '"invariant": "disc.toc",.*"failed": 0,' "$out/iso.json")" = 27 ] ||
  { echo "the synthetic image's table of contents did not pass on all 27 levels"; exit 1; }
norm() { grep -v '"invariant": "disc.toc"' "$1" | sed -e 's|"label": "[^"]*"|"label": L|' \
                                                      -e 's|"checks": [0-9]*|"checks": N|' \
                                                      -e 's|"passed": [0-9]*|"passed": N|'; }
cmp -s <(norm "$out/dir.json") <(norm "$out/iso.json") ||
  { diff <(norm "$out/dir.json") <(norm "$out/iso.json") | head; echo "image and directory reports differ"; exit 1; }
for k in checks passed; do
  [ $(( $(sed -n "s/.*\"$k\": \([0-9]*\).*/\1/p" "$out/iso.json") - \
        $(sed -n "s/.*\"$k\": \([0-9]*\).*/\1/p" "$out/dir.json") )) = 27 ] ||
    { echo "the image's summary $k is not the directory's + 27"; exit 1; }
done
$py ci/validate_reports.py docs/schemas/report.schema.json "$out/iso.json"
echo "disc image: report equal to the directory's (label and 27 disc.toc results aside)"

echo "== installed gcverify and libgcformats (ci/install.sh)"
BUILD=$BUILD bash ci/install.sh

if [ -x ci/frames_crosscheck.sh ]; then
  echo "== frame hashes across compilers and optimisation levels"
  FULL=1 GOLDEN=golden/frames-small.yaml bash ci/frames_crosscheck.sh
  echo "== synthetic corpus and sweep report across compilers and optimisation levels"
  ref_corpus="" ref_report=""
  for b in build-crosscheck/build-*/; do
    b=${b%/}
    rm -rf "$b/corpus-check"
    "$b/gcverify" synth --out "$b/corpus-check" --scale small >/dev/null
    "$b/gcverify" sweep --corpus "$b/corpus-check" --quiet --jobs 2 --json "$b/report.json" \
      --baseline none --frames-golden golden/frames-small.yaml || true
    if [ -z "$ref_corpus" ]; then
      ref_corpus="$b/corpus-check" ref_report="$b/report.json"
      continue
    fi
    for f in "$ref_corpus"/LEVEL*.WAD; do
      cmp -s "$f" "$b/corpus-check/${f##*/}" || { echo "synthetic ${f##*/} differs: $ref_corpus vs $b"; exit 1; }
    done
    # the reports name their corpus directory; everything else must be identical
    cmp -s <(sed 's|build-crosscheck/build-[a-z]*-O[0-9]/corpus-check|CORPUS|g' "$ref_report") \
           <(sed 's|build-crosscheck/build-[a-z]*-O[0-9]/corpus-check|CORPUS|g' "$b/report.json") ||
      { echo "sweep reports differ between $ref_report and $b/report.json"; exit 1; }
  done
  echo "corpus bytes and sweep reports identical across $(ls -d build-crosscheck/build-*/ | wc -l) builds"
  $py ci/validate_reports.py docs/schemas/report.schema.json build-crosscheck/build-*/report.json
fi
if [ -x ci/faults.sh ]; then
  echo "== fault catalogue"
  bash ci/faults.sh
fi
