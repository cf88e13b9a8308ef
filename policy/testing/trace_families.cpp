#include "policy/testing/trace_families.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

namespace tiercache {
namespace {

constexpr uint64_t kLengthFactor = 20;  // accesses per trace, in cache sizes

// mt19937_64 is specified bit for bit; the std distributions are not, so draws are done here.
class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t below(uint64_t n) { return gen_() % n; }
  double unit() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }

 private:
  std::mt19937_64 gen_;
};

// Blocks of different roles live in disjoint ranges, far apart.
constexpr uint64_t kHotBase = 0;
constexpr uint64_t kColdBase = 1ULL << 40;
constexpr uint64_t kFreshBase = 2ULL << 40;

std::vector<uint64_t> HotRandom(uint32_t c, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> trace;
  for (uint64_t i = 0; i < kLengthFactor * c; ++i) {
    trace.push_back(rng.chance(0.8) ? kHotBase + rng.below(c / 2) : kColdBase + rng.below(16ULL * c));
  }
  return trace;
}

std::vector<uint64_t> ZipfScans(uint32_t c, uint64_t seed) {
  Rng rng(seed);
  const uint64_t n = 4ULL * c;
  std::vector<double> cdf(n);
  double sum = 0;
  for (uint64_t r = 0; r < n; ++r) cdf[r] = sum += 1.0 / std::pow(static_cast<double>(r + 1), 0.9);
  std::vector<uint64_t> trace;
  uint64_t fresh = kFreshBase;
  while (trace.size() < kLengthFactor * c) {
    for (uint64_t i = 0; i < 3ULL * c; ++i) {
      uint64_t rank = std::lower_bound(cdf.begin(), cdf.end(), rng.unit() * sum) - cdf.begin();
      trace.push_back(kHotBase + std::min(rank, n - 1));
    }
    for (uint64_t i = 0; i < c; ++i) trace.push_back(fresh++);  // a scan read once
  }
  trace.resize(kLengthFactor * c);
  return trace;
}

std::vector<uint64_t> Loops(uint32_t c, uint64_t seed) {
  const uint64_t loop = c + c / 2;
  std::vector<uint64_t> trace;
  for (uint64_t i = 0; i < kLengthFactor * c; ++i) trace.push_back(kHotBase + i % loop);
  return trace;
}

std::vector<uint64_t> ShiftingHot(uint32_t c, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> trace;
  for (uint64_t i = 0; i < kLengthFactor * c; ++i) {
    const uint64_t phase = i / (4ULL * c);  // a new hot set every 4 C accesses
    trace.push_back(rng.chance(0.9) ? kHotBase + phase * c + rng.below(c / 2)
                                    : kColdBase + rng.below(16ULL * c));
  }
  return trace;
}

std::vector<uint64_t> BootOnce(uint32_t c, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> trace;
  uint64_t fresh = kFreshBase;
  while (trace.size() < kLengthFactor * c) {
    if (rng.chance(0.5)) {  // libraries and configs read again and again
      for (int i = 0; i < 16; ++i) trace.push_back(kHotBase + rng.below(c / 8));
    } else {  // a file read once, front to back
      const uint64_t run = 8 + rng.below(249);
      fresh += rng.below(1024);
      for (uint64_t i = 0; i < run; ++i) trace.push_back(fresh++);
    }
  }
  trace.resize(kLengthFactor * c);
  return trace;
}

std::vector<uint64_t> ReadTwice(uint32_t c, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> trace, group(std::max<uint32_t>(c / 16, 1));
  uint64_t fresh = kFreshBase;
  while (trace.size() < kLengthFactor * c) {
    for (uint64_t& block : group) block = fresh++;
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t i = group.size(); i > 1; --i) std::swap(group[i - 1], group[rng.below(i)]);
      trace.insert(trace.end(), group.begin(), group.end());
    }
  }
  trace.resize(kLengthFactor * c);
  return trace;
}

constexpr std::array kFamilies = {
    TraceFamily{"hot_random", "80% uniform over a hot set of C/2, 20% over 16 C cold blocks", true,
                HotRandom},
    TraceFamily{"zipf_scans", "Zipf 0.9 over 4 C blocks, 3 C accesses, then a scan of C new blocks",
                true, ZipfScans},
    TraceFamily{"loops", "a loop over 1.5 C blocks, again and again", true, Loops},
    TraceFamily{"shifting_hot", "90% over a hot set of C/2 that moves every 4 C, 10% over 16 C",
                true, ShiftingHot},
    TraceFamily{"boot_once", "files of 8-256 blocks read once; 10% of reads over C/8 hot blocks",
                true, BootOnce},
    TraceFamily{"read_twice", "groups of C/16 new blocks, each read twice in shuffled order",
                false, ReadTwice},
};

}  // namespace

std::span<const TraceFamily> TraceFamilies() { return kFamilies; }

const TraceFamily* FindTraceFamily(std::string_view name) {
  for (const TraceFamily& family : kFamilies) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

}  // namespace tiercache
