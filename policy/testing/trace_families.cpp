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
  uint64_t below(uint64_t n) { return gen_() % std::max<uint64_t>(n, 1); }
  double unit() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }

 private:
  std::mt19937_64 gen_;
};

// Blocks of different roles live in disjoint ranges, far apart.
constexpr uint64_t kHotBase = 0;
constexpr uint64_t kColdBase = 1ULL << 40;
constexpr uint64_t kFreshBase = 2ULL << 40;

uint64_t Blocks(double caches, uint32_t c) { return static_cast<uint64_t>(caches * c); }

// hot_share of the accesses go uniformly to hot_size * C blocks, the rest to 16 C cold blocks.
std::vector<uint64_t> HotRandom(uint32_t c, uint64_t seed, double hot_share, double hot_size) {
  Rng rng(seed);
  std::vector<uint64_t> trace;
  for (uint64_t i = 0; i < kLengthFactor * c; ++i) {
    trace.push_back(rng.chance(hot_share) ? kHotBase + rng.below(Blocks(hot_size, c))
                                          : kColdBase + rng.below(16ULL * c));
  }
  return trace;
}

// Zipf(alpha) over universe * C blocks for period * C accesses, then scan * C new blocks.
std::vector<uint64_t> ZipfScans(uint32_t c, uint64_t seed, double alpha, double universe,
                                double period, double scan) {
  Rng rng(seed);
  const uint64_t n = Blocks(universe, c);
  std::vector<double> cdf(n);
  double sum = 0;
  for (uint64_t r = 0; r < n; ++r) cdf[r] = sum += 1.0 / std::pow(r + 1.0, alpha);
  std::vector<uint64_t> trace;
  uint64_t fresh = kFreshBase;
  while (trace.size() < kLengthFactor * c) {
    for (uint64_t i = 0; i < Blocks(period, c); ++i) {
      const auto at = std::lower_bound(cdf.begin(), cdf.end(), rng.unit() * sum);
      trace.push_back(kHotBase + std::min<uint64_t>(at - cdf.begin(), n - 1));
    }
    for (uint64_t i = 0; i < Blocks(scan, c); ++i) trace.push_back(fresh++);
  }
  trace.resize(kLengthFactor * c);
  return trace;
}

// A loop over length * C blocks; a `noise` share of the accesses go to 16 C cold blocks instead.
std::vector<uint64_t> Loops(uint32_t c, uint64_t seed, double length, double noise) {
  Rng rng(seed);
  const uint64_t loop = Blocks(length, c);
  std::vector<uint64_t> trace;
  for (uint64_t i = 0; i < kLengthFactor * c; ++i) {
    const bool cold = noise > 0 && rng.chance(noise);
    trace.push_back(cold ? kColdBase + rng.below(16ULL * c) : kHotBase + i % loop);
  }
  return trace;
}

// hot_share of the accesses go to hot_size * C blocks that move every period * C accesses.
std::vector<uint64_t> ShiftingHot(uint32_t c, uint64_t seed, double period, double hot_size,
                                  double hot_share) {
  Rng rng(seed);
  std::vector<uint64_t> trace;
  for (uint64_t i = 0; i < kLengthFactor * c; ++i) {
    const uint64_t phase = i / Blocks(period, c);
    trace.push_back(rng.chance(hot_share) ? kHotBase + phase * c + rng.below(Blocks(hot_size, c))
                                          : kColdBase + rng.below(16ULL * c));
  }
  return trace;
}

// Files of 8-256 blocks read once; with probability burst_chance a burst of 16 reads over
// hot_size * C library blocks comes instead of a file.
std::vector<uint64_t> BootOnce(uint32_t c, uint64_t seed, double burst_chance, double hot_size) {
  Rng rng(seed);
  std::vector<uint64_t> trace;
  uint64_t fresh = kFreshBase;
  while (trace.size() < kLengthFactor * c) {
    if (rng.chance(burst_chance)) {
      for (int i = 0; i < 16; ++i) trace.push_back(kHotBase + rng.below(Blocks(hot_size, c)));
    } else {
      const uint64_t run = 8 + rng.below(249);
      fresh += rng.below(1024);
      for (uint64_t i = 0; i < run; ++i) trace.push_back(fresh++);
    }
  }
  trace.resize(kLengthFactor * c);
  return trace;
}

// Groups of group * C new blocks, each group read twice in shuffled order.
std::vector<uint64_t> ReadTwice(uint32_t c, uint64_t seed, double group_size) {
  Rng rng(seed);
  std::vector<uint64_t> trace, group(std::max<uint64_t>(Blocks(group_size, c), 1));
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

using Group = FamilyGroup;

constexpr std::array kFamilies = {
    TraceFamily{"hot_random", "80% uniform over a hot set of C/2, 20% over 16 C cold blocks",
                Group::kTarget, [](uint32_t c, uint64_t s) { return HotRandom(c, s, 0.8, 0.5); }},
    TraceFamily{"zipf_scans", "Zipf 0.9 over 4 C blocks, 3 C accesses, then a scan of C new blocks",
                Group::kTarget,
                [](uint32_t c, uint64_t s) { return ZipfScans(c, s, 0.9, 4, 3, 1); }},
    TraceFamily{"loops", "a loop over 1.5 C blocks, again and again", Group::kTarget,
                [](uint32_t c, uint64_t s) { return Loops(c, s, 1.5, 0); }},
    TraceFamily{"shifting_hot", "90% over a hot set of C/2 that moves every 4 C, 10% over 16 C",
                Group::kTarget,
                [](uint32_t c, uint64_t s) { return ShiftingHot(c, s, 4, 0.5, 0.9); }},
    TraceFamily{"boot_once", "files of 8-256 blocks read once; 10% of reads over C/8 hot blocks",
                Group::kTarget, [](uint32_t c, uint64_t s) { return BootOnce(c, s, 0.5, 0.125); }},
    TraceFamily{"read_twice", "groups of C/16 new blocks, each read twice in shuffled order",
                Group::kGuard, [](uint32_t c, uint64_t s) { return ReadTwice(c, s, 0.0625); }},
    TraceFamily{"hot_small", "70% over C/4 hot blocks, 30% over 16 C", Group::kVariant,
                [](uint32_t c, uint64_t s) { return HotRandom(c, s, 0.7, 0.25); }},
    TraceFamily{"hot_large", "90% over 3C/4 hot blocks, 10% over 16 C", Group::kVariant,
                [](uint32_t c, uint64_t s) { return HotRandom(c, s, 0.9, 0.75); }},
    TraceFamily{"hot_even", "50% over C/2 hot blocks, 50% over 16 C", Group::kVariant,
                [](uint32_t c, uint64_t s) { return HotRandom(c, s, 0.5, 0.5); }},
    TraceFamily{"zipf_0.7", "zipf_scans with Zipf 0.7", Group::kVariant,
                [](uint32_t c, uint64_t s) { return ZipfScans(c, s, 0.7, 4, 3, 1); }},
    TraceFamily{"zipf_1.0", "zipf_scans with Zipf 1.0", Group::kVariant,
                [](uint32_t c, uint64_t s) { return ZipfScans(c, s, 1.0, 4, 3, 1); }},
    TraceFamily{"zipf_wide", "Zipf 0.9 over 8 C, 2 C accesses, then a scan of C/2", Group::kVariant,
                [](uint32_t c, uint64_t s) { return ZipfScans(c, s, 0.9, 8, 2, 0.5); }},
    TraceFamily{"zipf_narrow", "Zipf 0.9 over 2 C, 6 C accesses, then a scan of 2 C",
                Group::kVariant,
                [](uint32_t c, uint64_t s) { return ZipfScans(c, s, 0.9, 2, 6, 2); }},
    TraceFamily{"zipf_plain", "Zipf 0.9 over 4 C, no scans", Group::kVariant,
                [](uint32_t c, uint64_t s) { return ZipfScans(c, s, 0.9, 4, 20, 0); }},
    TraceFamily{"zipf_scan_heavy", "Zipf 0.9 over 4 C, C/2 accesses, then a scan of C",
                Group::kVariant,
                [](uint32_t c, uint64_t s) { return ZipfScans(c, s, 0.9, 4, 0.5, 1); }},
    TraceFamily{"loop_1.1", "a loop over 1.1 C blocks", Group::kVariant,
                [](uint32_t c, uint64_t s) { return Loops(c, s, 1.1, 0); }},
    TraceFamily{"loop_2", "a loop over 2 C blocks", Group::kVariant,
                [](uint32_t c, uint64_t s) { return Loops(c, s, 2, 0); }},
    TraceFamily{"loop_3", "a loop over 3 C blocks", Group::kVariant,
                [](uint32_t c, uint64_t s) { return Loops(c, s, 3, 0); }},
    TraceFamily{"loop_noisy", "a loop over 1.5 C blocks, 10% of reads over 16 C cold blocks",
                Group::kVariant, [](uint32_t c, uint64_t s) { return Loops(c, s, 1.5, 0.1); }},
    TraceFamily{"shift_fast", "90% over C/2 hot blocks that move every 2 C", Group::kVariant,
                [](uint32_t c, uint64_t s) { return ShiftingHot(c, s, 2, 0.5, 0.9); }},
    TraceFamily{"shift_slow_small", "90% over C/4 hot blocks that move every 8 C",
                Group::kVariant,
                [](uint32_t c, uint64_t s) { return ShiftingHot(c, s, 8, 0.25, 0.9); }},
    TraceFamily{"shift_large", "80% over 3C/4 hot blocks that move every 4 C", Group::kVariant,
                [](uint32_t c, uint64_t s) { return ShiftingHot(c, s, 4, 0.75, 0.8); }},
    TraceFamily{"boot_rare_hot", "boot_once with 3% of reads over C/16 hot blocks",
                Group::kVariant,
                [](uint32_t c, uint64_t s) { return BootOnce(c, s, 0.2, 0.0625); }},
    TraceFamily{"boot_busy", "boot_once with a third of the reads over C/4 hot blocks",
                Group::kVariant, [](uint32_t c, uint64_t s) { return BootOnce(c, s, 0.8, 0.25); }},
    TraceFamily{"twice_small", "read_twice with groups of C/64", Group::kVariant,
                [](uint32_t c, uint64_t s) { return ReadTwice(c, s, 1.0 / 64); }},
    TraceFamily{"twice_large", "read_twice with groups of C/4", Group::kVariant,
                [](uint32_t c, uint64_t s) { return ReadTwice(c, s, 0.25); }},
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
