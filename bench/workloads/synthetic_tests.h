// Synthetic benchmark tests as request streams: the CrystalDiskMark default profile (SEQ1M Q8T1,
// SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, each read and write) and AS SSD's 4K-64Thrd, over a test
// area ("test file") of the disk. Names follow CrystalDiskMark: "cdm:RND4K-Q32T1-read"; any
// (SEQ|RND)<n>(K|M)-Q<q>T<t>-(read|write) parses. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bench/workloads/trace.h"

namespace tiercache::bench {

struct SyntheticTest {
  std::string name;          // "<prefix>:<test>", e.g. "cdm:SEQ1M-Q8T1-read"
  bool sequential = false;
  uint64_t block = 0;        // bytes per request
  uint32_t queue_depth = 1;  // per thread
  uint32_t threads = 1;
  bool write = false;

  bool operator==(const SyntheticTest&) const = default;
};

// "prefix:SEQ1M-Q8T1-read" style; InvalidArgument otherwise. AS SSD's "4K-64Thrd-read" is
// accepted as RND4K-Q1T64.
Result<SyntheticTest> ParseSyntheticTest(std::string_view name);

// The eight tests of CrystalDiskMark's default profile, named "<prefix>:...".
std::vector<SyntheticTest> CrystalDiskMarkTests(std::string_view prefix = "cdm");
// AS SSD 4K-64Thrd read and write: "asssd:4K-64Thrd-read", "asssd:4K-64Thrd-write".
std::vector<SyntheticTest> AsSsdTests();

struct SyntheticArea {
  uint64_t offset = 0;             // where the test file starts on the disk
  uint64_t bytes = 1ull << 30;     // test file size (CrystalDiskMark default: 1 GiB)
  uint64_t random_ops = 8192;      // requests per pass of a random test
  uint64_t sequential_bytes = 0;   // bytes per pass of a sequential test; 0: the whole area
};

// One measured pass: sequential tests walk the area from its start; random tests pick
// block-aligned offsets uniformly in the area (different for each pass). Queue depth x threads
// requests stay in flight.
Trace MakeSyntheticTrace(const SyntheticTest& test, const SyntheticArea& area, uint64_t seed,
                         uint32_t pass);
// Creating the test file, as CrystalDiskMark does before measuring: 1 MiB writes at QD8.
Trace MakePreparationTrace(const SyntheticArea& area);

}  // namespace tiercache::bench
