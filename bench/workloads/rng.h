// Rng: the benchmark's deterministic random source (splitmix64). The same seed gives the same
// stream on every platform and standard library, which std:: distributions do not promise.
// Not thread-safe; one per generator.
#pragma once

#include <cmath>
#include <cstdint>

namespace tiercache::bench {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0.
  uint64_t below(uint64_t n) { return next() % n; }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }
  bool chance(double p) { return uniform() < p; }
  // Exponentially distributed with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  // Log-uniform in [lo, hi].
  double log_uniform(double lo, double hi) {
    return std::exp(std::log(lo) + uniform() * (std::log(hi) - std::log(lo)));
  }

 private:
  uint64_t state_;
};

// Mixes a name into a seed so that each workload gets its own stream from one --seed.
inline uint64_t SeedFor(uint64_t seed, const char* name, uint64_t salt = 0) {
  uint64_t h = 1469598103934665603ull;
  for (const char* p = name; *p; ++p) h = (h ^ static_cast<unsigned char>(*p)) * 1099511628211ull;
  return Rng(seed ^ h ^ (salt * 0x9E3779B97F4A7C15ull)).next();
}

}  // namespace tiercache::bench
