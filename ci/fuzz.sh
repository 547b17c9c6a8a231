#!/usr/bin/env bash
# Nightly tier: every libFuzzer target for FUZZ_SECONDS (default 300) each, starting
# from its committed corpus (tests/fuzz/corpus/<name>/), with ASan+UBSan and
# every library instrumented. New inputs go to build-fuzz/new-corpus/<name>/;
# a crash leaves crash-* files there and fails the script. The committed
# corpora are replayed by the normal test suite (replay_<name>) on every push.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-300}
make build BUILD=build-fuzz CC=clang FUZZ=ON >/dev/null
status=0
for bin in build-fuzz/tests/fuzz_*; do
  name=${bin##*/fuzz_}
  out=build-fuzz/new-corpus/$name
  mkdir -p "$out"
  echo "== fuzz_$name for ${SECONDS_EACH}s"
  if ! (cd "$out" && "../../../$bin" -max_total_time="$SECONDS_EACH" -print_final_stats=1 . "../../../tests/fuzz/corpus/$name" 2>&1 | tail -4); then
    echo "fuzz_$name: FAILED (see $out)"; status=1
  fi
done
exit $status
