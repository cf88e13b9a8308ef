# Thin wrapper over CMake. `make demo` and `make test` work on a fresh Debian 12 machine as root.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= 2
CTEST_ARGS ?=
PREFIX     ?= /usr/local
DESTDIR    ?=

.PHONY: all deps build build-asan test demo clean fuzz vmtest install

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

# Every test: unit tests under ASan+UBSan, a short libFuzzer run over the NBD parsers, then
# everything (unit, e2e with real NBD clients, real-kernel VM tests) on the optimized build.
test: build build-asan fuzz
	cd $(ASAN_BUILD) && ctest --output-on-failure -L unit $(CTEST_ARGS)
	cd $(BUILD) && ctest --output-on-failure $(CTEST_ARGS)

# libFuzzer over the NBD handshake and request parsers and the metadata decoders (clang); the
# smoke runs are 200k and 30k inputs.
# A longer run: $(FUZZ_BUILD)/daemon/nbd_fuzz -max_total_time=600 daemon/nbd_fuzz_corpus
fuzz: deps
	test -f $(FUZZ_BUILD)/CMakeCache.txt || CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIERCACHE_FUZZ=ON
	# Re-run the configure step first: a target added since the last run must be known.
	cmake $(FUZZ_BUILD) >/dev/null
	cmake --build $(FUZZ_BUILD) -j$(JOBS) --target nbd_fuzz metadata_fuzz
	cd $(FUZZ_BUILD) && ctest --output-on-failure -L fuzz

# Real-kernel tests in qemu TCG (tests/vm/, docs/vm-tests.md): kernel NBD and ublk.
vmtest: build
	cd $(BUILD) && ctest --output-on-failure -L vm $(CTEST_ARGS)

# Installs the binaries, man pages and systemd units under $(DESTDIR)$(PREFIX) (docs/operations.md).
# The .deb instead: cd $(BUILD) && cpack -G DEB.
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

demo: build
	scripts/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
