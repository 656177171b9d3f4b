# tokenbench: the two commands of the README are `make demo` and `make test`.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
# -g1: line tables and function names only (backtraces, perf and gdb's `bt` still name file and
# line), which compiles and links faster than full debug info (-g). `make DEBUG_INFO=-g` in a new
# BUILD_DIR for variables in gdb.
DEBUG_INFO ?= -g1
JOBS ?= 2
PREFIX ?= /usr/local

FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
ASAN_DIR ?= build-asan
TSAN_DIR ?= build-tsan
TIDY_DIR ?= build-tidy
SOAK_SECONDS ?= 300
SOAK_STREAMS ?= 2000
SOAK_RATE ?= 2000
# The C++ files clang-format keeps in shape (.clang-format; third_party/ is not ours).
FORMAT_FILES = find src tests bench fuzz \( -name '*.h' -o -name '*.cpp' \) -print0 | sort -z
# Sanitizer builds: -O1 with line tables only compiles 2.5x faster than -O2 -g (measured on the
# CI subset: 4.3 against 10.7 CPU minutes), which is what lets CI afford one.
SAN_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" \
  -DTOKENBENCH_BUILD_BENCH=OFF

.PHONY: all deps build demo test bench install package clean fuzz test-asan test-asan-ci test-tsan soak \
  format format-check tidy

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/CMakeCache.txt:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_INSTALL_PREFIX=$(PREFIX) \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 $(DEBUG_INFO) -DNDEBUG"

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j$(JOBS)

# Starts the built-in simulated server on a free loopback port, benchmarks it, stops it.
demo: build
	@bash scripts/demo.sh $(BUILD_DIR)/tokenbench

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS) --timeout 300

bench: build
	@bash scripts/bench.sh $(BUILD_DIR)

install: build
	cmake --install $(BUILD_DIR)

# A Debian package (CPack, cmake/package.cmake): $(BUILD_DIR)/tokenbench_<version>_<arch>.deb with
# the stripped binary, its man page, bash and zsh completions and the docs. Install it with
# `sudo dpkg -i $(BUILD_DIR)/tokenbench_*.deb`.
package: build
	cd $(BUILD_DIR) && cpack -G DEB

clean:
	rm -rf $(BUILD_DIR)

# libFuzzer targets (fuzz/) built with clang, ASan and UBSan in their own directory, each run for
# FUZZ_SECONDS; fails on a crash. FUZZ_TARGETS="sse_stream api_adapter" runs only those.
fuzz:
	@bash scripts/install-deps.sh fuzz
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -DTOKENBENCH_FUZZ=ON \
	  -DTOKENBENCH_BUILD_TESTS=OFF -DTOKENBENCH_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only"
	cmake --build $(FUZZ_DIR) -j$(JOBS) --target fuzz_targets
	bash scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Every unit and end-to-end test under ASan and UBSan (the real-time sweep tests and the
# tokenizer tests that need fetched fixtures are left out: see docs/RELIABILITY.md).
test-asan: deps
	cmake -S . -B $(ASAN_DIR) -DTOKENBENCH_SANITIZE=ON $(SAN_FLAGS)
	cmake --build $(ASAN_DIR) -j$(JOBS) --target tokenbench_unit_tests tokenbench_e2e_tests
	cd $(ASAN_DIR) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --output-on-failure -j$(JOBS) --timeout 300 -LE tokenizer -E '_NOT_BUILT'

# What CI affords of the above (see .ci/run): the input-parsing tests and a replay of the
# committed fuzz corpora, built from the few sources they need, under ASan and UBSan.
test-asan-ci: deps
	cmake -S . -B build-asan-ci -DTOKENBENCH_SANITIZE=ON $(SAN_FLAGS)
	cmake --build build-asan-ci -j$(JOBS) --target tokenbench_asan_ci_tests
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  build-asan-ci/tests/tokenbench_asan_ci_tests

# The engine and simulator tests under ThreadSanitizer.
test-tsan: deps
	cmake -S . -B $(TSAN_DIR) -DTOKENBENCH_TSAN=ON $(SAN_FLAGS)
	cmake --build $(TSAN_DIR) -j$(JOBS) --target tokenbench_tsan_tests
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 $(TSAN_DIR)/tests/tokenbench_tsan_tests

# SOAK_RATE requests per second (at most SOAK_STREAMS at once) for SOAK_SECONDS against serve-sim;
# samples the client's RSS and open descriptors into $(BUILD_DIR)/soak.csv and checks that both
# stay flat. `make soak SOAK_SECONDS=3600` is the hour of docs/PERFORMANCE.md. Not in CI.
soak: build
	SOAK_SECONDS=$(SOAK_SECONDS) SOAK_STREAMS=$(SOAK_STREAMS) SOAK_RATE=$(SOAK_RATE) \
	  bash scripts/soak.sh $(BUILD_DIR)

# Every C++ file of FORMAT_FILES through clang-format without changing it: fails (CI runs it) on a
# file that `make format` would change, printing what would change.
format-check: deps
	$(FORMAT_FILES) | xargs -0 -P$(JOBS) -n20 clang-format --dry-run --Werror

format: deps
	$(FORMAT_FILES) | xargs -0 -P$(JOBS) -n20 clang-format -i

# clang-tidy (.clang-tidy: its checks, and why others are off) over every source file of src/,
# with the compile commands of $(BUILD_DIR) (configured, not built); fails on any finding. Slow
# (about 25 minutes on 2 idle cores), so not in CI.
# clang-tidy reads compile commands without GCC's precompiled headers (it cannot load a .gch): a
# build directory of its own, configured only.
tidy: deps
	@bash scripts/install-deps.sh tidy
	cmake -S . -B $(TIDY_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DTOKENBENCH_PCH=OFF > /dev/null
	bash scripts/tidy.sh $(TIDY_DIR) $(JOBS)
