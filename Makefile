# Thin wrapper over CMake. `make demo` and `make test` work on a fresh Debian 12 machine as root.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= 2
CTEST_ARGS ?=

.PHONY: all deps build build-asan test unit-asan check-e2e demo clean fuzz

all: build

deps:
	scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

$(ASAN_BUILD)/CMakeCache.txt:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTIERCACHE_SANITIZE=ON

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

build-asan: deps $(ASAN_BUILD)/CMakeCache.txt
	cmake --build $(ASAN_BUILD) -j$(JOBS)

# Every test: unit tests under ASan+UBSan, then everything (unit, integration, e2e with real
# NBD clients) on the optimized build.
test: build build-asan
	cd $(ASAN_BUILD) && ctest --output-on-failure -L unit $(CTEST_ARGS)
	cd $(BUILD) && ctest --output-on-failure $(CTEST_ARGS)

demo: build
	scripts/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
