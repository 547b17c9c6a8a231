# Thin wrapper around CMake. `make sweep` and `make test` are the README's
# quick start; both configure and build first. Variables:
#   BUILD=dir      build directory (default build)
#   CC=clang       compiler
#   SANITIZE=address,undefined
#   CONFIG=Debug|Release|RelWithDebInfo
#   FAULTS=ON      compile in the fault-injection switches
#   WERROR=ON      warnings are errors (CI sets it)
BUILD    ?= build
CONFIG   ?= RelWithDebInfo
SANITIZE ?=
FAULTS   ?= OFF
WERROR   ?= OFF
FUZZ     ?= OFF
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS = -DCMAKE_BUILD_TYPE=$(CONFIG) -DGC_SANITIZE=$(SANITIZE) -DGC_FAULTS=$(FAULTS) \
             -DGC_WERROR=$(WERROR) -DGC_FUZZ=$(FUZZ)
ifneq ($(origin CC),default)
CMAKE_ARGS += -DCMAKE_C_COMPILER=$(CC)
endif

.PHONY: all build configure sweep test bench clean format check-format help

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

configure:
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main job: the nightly-style sweep of all 27 levels of the default corpus.
sweep: build
	./$(BUILD)/gcverify sweep $(SWEEP_ARGS)

# The whole test suite.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: build
	@for b in $(BUILD)/bench/bench_*; do echo "== $$b"; $$b || exit 1; done

format:
	git ls-files '*.c' '*.h' | xargs clang-format -i

# Outside a git checkout there is nothing to list: that is a failure, never
# a pass (a CI container without git once made this check nothing).
check-format:
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || \
	  { echo "make check-format: not a git checkout (or git is missing): nothing would be checked" >&2; exit 1; }
	@files=$$(git ls-files '*.c' '*.h'); \
	  [ -n "$$files" ] || { echo "make check-format: git lists no .c/.h files" >&2; exit 1; }; \
	  printf '%s\n' $$files | xargs clang-format --dry-run --Werror

clean:
	rm -rf $(BUILD)

help:
	@sed -n '1,12p' Makefile
