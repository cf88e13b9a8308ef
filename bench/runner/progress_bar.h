// ProgressBar: shows benchmark progress on stderr: a redrawn bar when stderr is a terminal, one
// line per finished workload/setup otherwise (logs stay readable). Not thread-safe.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace tiercache::bench {

class ProgressBar {
 public:
  ProgressBar(uint64_t total_passes, uint32_t passes_per_setup, std::FILE* out = stderr);
  // One measured pass finished.
  void step(const std::string& workload, const std::string& setup, uint32_t pass);
  // Clears the bar.
  void finish();

 private:
  uint64_t total_, done_ = 0;
  uint32_t passes_;
  std::FILE* out_;
  bool tty_;
};

}  // namespace tiercache::bench
