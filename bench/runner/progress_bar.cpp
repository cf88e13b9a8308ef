#include "bench/runner/progress_bar.h"

#include <unistd.h>

#include <algorithm>

namespace tiercache::bench {

ProgressBar::ProgressBar(uint64_t total_passes, uint32_t passes_per_setup, std::FILE* out)
    : total_(std::max<uint64_t>(1, total_passes)),
      passes_(passes_per_setup),
      out_(out),
      tty_(isatty(fileno(out)) == 1) {}

void ProgressBar::step(const std::string& workload, const std::string& setup, uint32_t pass) {
  ++done_;
  if (!tty_) {
    if (pass == passes_) {
      std::fprintf(out_, "[%3d%%] %s: %s done\n", static_cast<int>(100 * done_ / total_),
                   workload.c_str(), setup.c_str());
    }
    return;
  }
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * done_ / total_);
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '-');
  std::string label = workload + " / " + setup + " / pass " + std::to_string(pass);
  if (label.size() > 40) label.resize(40);
  std::fprintf(out_, "\r[%s] %3d%% %-40s", bar.c_str(), static_cast<int>(100 * done_ / total_),
               label.c_str());
  std::fflush(out_);
}

void ProgressBar::finish() {
  if (tty_) std::fprintf(out_, "\r%80s\r", "");
  std::fflush(out_);
}

}  // namespace tiercache::bench
