#!/usr/bin/env bash
# The fault catalogue in CI (gate tier, about a minute on the small corpus):
# build with the fault switches compiled in, run the sweep clean and once per
# fault, fail unless every fault is caught by its named invariant, and fail if
# docs/fault-catalogue.md is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
make build BUILD=build-faults FAULTS=ON WERROR="${WERROR:-OFF}" >/dev/null
ctest --test-dir build-faults -R test_faults --output-on-failure
./build-faults/gcverify faults --check --markdown build-faults/fault-catalogue.md
if ! cmp -s build-faults/fault-catalogue.md docs/fault-catalogue.md; then
  diff -u docs/fault-catalogue.md build-faults/fault-catalogue.md || true
  echo "docs/fault-catalogue.md is stale: run ./build-faults/gcverify faults --check --markdown docs/fault-catalogue.md"
  exit 1
fi
