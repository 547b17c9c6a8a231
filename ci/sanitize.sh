#!/usr/bin/env bash
# The whole test suite again in an address+undefined sanitizer build, at -O2
# (RelWithDebInfo): the Debug (-O0) build made the sweeping suites run 3-5x longer
# than their hang guards allowed once objects, lighting and digests landed.
set -euo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/ci/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
make test BUILD=build-asan CONFIG=RelWithDebInfo SANITIZE=address,undefined WERROR="${WERROR:-OFF}"
