#!/usr/bin/env bash
# Mutation testing of the decoders (nightly; slow: about 20 s per mutant on 2
# cores, so 80 mutants take half an hour). Applies N seeded source mutations
# to decoders/*.c one at a time in a copy of the checkout, rebuilds only the
# gcverify binary, runs the gate (small and edge corpora against their
# baselines) and, for
# a mutant the gate lets through while some output moved, the test suite;
# every step under a per-mutant time limit (the process group is killed on
# timeout). Reports killed / survived / equivalent and the surviving lines.
# Figures: docs/verification.md.
#
#   MUTANTS=80 SEED=17 MUTANT_TIMEOUT=60 MUTATE_DIR=/tmp/gcverify-mutate ci/mutate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work="${MUTATE_DIR:-${TMPDIR:-/tmp}/gcverify-mutate-$(id -u)}"
exec python3 ci/mutate.py --src "$PWD" --work "$work" --count "${MUTANTS:-80}" \
  --seed "${SEED:-17}" --timeout "${MUTANT_TIMEOUT:-60}" --json "$work/mutants.json" "$@"
