// What a FLUSH waits for in the metadata store under write-back random writes: each client write
// moves a block (one line's record becomes in use, another's free, as a wb overwrite does), and
// every --per-persist writes the engine's persist runs. Prints, per persist, the SSD writes,
// flushes and bytes it issued and its wall time: mean, p99 and max, so the cost of the one persist
// that checkpoints shows next to the typical one. Only the public MetadataStore API: the same
// file builds against another tree for an A/B run (docs/performance.md), from session 14's on
// (LoopThread::call, and StoreOptions' step thresholds for --steps).
// Run: build/bench/metadata/persist_benchmark --dir /var/tmp --size 100G --writes 4000000
// --steps 3/4,7/8: a persist writes one step above three quarters of the journal, up to four
// above seven eighths (StoreOptions::one_step_above, four_steps_above; default: the store's).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/size_parser.h"
#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/file_device.h"
#include "cachelib/metadata/metadata_store.h"

namespace tiercache {
namespace {

struct Config {
  std::string dir = "/var/tmp";
  uint64_t size = 100ull << 30;
  uint64_t writes = 4000000;
  uint64_t per_persist = 2000;  // about 50 ms of a 40k IOPS wb cell
  StoreOptions store;
};

// Counts what reaches the SSD; touched on the loop thread only.
class CountingDevice final : public DeviceWrapper {
 public:
  explicit CountingDevice(Device& target) : DeviceWrapper(target) {}
  uint64_t writes = 0, flushes = 0, bytes = 0;

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    ++writes;
    bytes += buf.size();
    DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
  }
  void flush_impl(IoCallback cb) override {
    ++flushes;
    DeviceWrapper::flush_impl(std::move(cb));
  }
};

void Die(const char* what, const Status& s) {
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

struct Sample {
  uint64_t writes, flushes, bytes;
  double ms;
  uint64_t steps, checkpoints;  // the store's counters' increase
  uint64_t journal_used;        // blocks, after the persist
};

void Report(std::vector<Sample> samples, const Config& c, const MetadataCounters& counters) {
  auto pick = [&](auto field) {
    std::vector<double> v;
    for (const Sample& s : samples) v.push_back(double(field(s)));
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    auto at = [&](size_t pct) { return v[v.size() * pct / 100]; };
    return std::array<double, 5>{sum / double(v.size()), at(50), at(90), at(99), v.back()};
  };
  auto line = [&](const char* name, auto field, const char* fmt) {
    std::printf("%-22s", name);
    for (double x : pick(field)) std::printf(fmt, x);
    std::printf("\n");
  };
  std::printf("%llu persists of %llu client writes each (%llu GiB cache), steps above %s, "
              "four above %s\n",
              (unsigned long long)samples.size(), (unsigned long long)c.per_persist,
              (unsigned long long)(c.size >> 30), c.store.one_step_above.ToString().c_str(),
              c.store.four_steps_above.ToString().c_str());
  std::printf("%-22s%12s%12s%12s%12s%12s\n", "per persist", "mean", "p50", "p90", "p99", "max");
  line("SSD writes", [](const Sample& s) { return s.writes; }, "%12.1f");
  line("SSD flushes", [](const Sample& s) { return s.flushes; }, "%12.1f");
  line("KiB written", [](const Sample& s) { return s.bytes / 1024.0; }, "%12.1f");
  line("wall ms", [](const Sample& s) { return s.ms; }, "%12.2f");
  uint64_t bytes = 0, paged = 0;
  std::array<uint64_t, 5> by_steps{};  // persists by the steps they carried (4: four or more)
  std::vector<size_t> checkpoints;     // which persists checkpointed, 0-based
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    bytes += s.bytes, paged += s.flushes > 2;
    ++by_steps[std::min<uint64_t>(s.steps, 4)];
    if (s.checkpoints) checkpoints.push_back(i);
  }
  // A journal round is 2 flushes; a page round (a step or a checkpoint) adds 3.
  std::printf("persists with a page round: %llu of %llu\n", (unsigned long long)paged,
              (unsigned long long)samples.size());
  std::printf("persists carrying 1 / 2 / 3 / 4 steps: %llu / %llu / %llu / %llu\n",
              (unsigned long long)by_steps[1], (unsigned long long)by_steps[2],
              (unsigned long long)by_steps[3], (unsigned long long)by_steps[4]);
  std::printf("checkpoints: %zu", checkpoints.size());
  for (size_t i = 0; i < std::min<size_t>(checkpoints.size(), 8); ++i) {
    std::printf("%s#%zu", i ? ", " : " (persist ", checkpoints[i] + 1);
  }
  std::printf("%s\n", checkpoints.empty() ? "" : checkpoints.size() > 8 ? ", ...)" : ")");
  std::printf("metadata bytes per client write: %.1f\n",
              double(bytes) / double(samples.size() * c.per_persist));
  uint64_t fullest = 0;
  for (const Sample& s : samples) fullest = std::max(fullest, s.journal_used);
  std::printf("store: %llu journal rounds, %llu steps; journal of %llu blocks: %llu used at the "
              "end, at most %llu after a persist\n",
              (unsigned long long)counters.journal_rounds, (unsigned long long)counters.steps,
              (unsigned long long)counters.journal_blocks,
              (unsigned long long)counters.journal_blocks_used, (unsigned long long)fullest);
}

void Run(const Config& c) {
  const std::string path = c.dir + "/tiercache-persist-bench.ssd";
  std::ofstream(path).close();
  if (truncate(path.c_str(), 0) != 0 || truncate(path.c_str(), off_t(c.size)) != 0) {
    std::perror("truncate");
    std::exit(1);
  }
  auto loop = std::move(LoopThread::Start("persist")).value();
  auto file = FileDevice::Open(path);
  if (!file.ok()) Die("open", file.status());
  CountingDevice ssd(**file);
  const CoreIdentity core{c.dir + "/no-core", c.size * 4, 0x9e75};
  FormatOptions f;
  f.force = true;
  Status s = loop->call<Status>([&](auto cb) { MetadataStore::Format(ssd, core, f, cb); });
  if (!s.ok()) Die("format", s);
  using R = Result<std::unique_ptr<MetadataStore>>;
  R store = loop->call<R>([&](auto cb) { MetadataStore::Open(ssd, core, cb, c.store); });
  if (!store.ok()) Die("open", store.status());
  const uint64_t lines = (*store)->line_count();
  // Line l is either free or holds core line l, all sectors valid and dirty.
  std::vector<uint8_t> in_use(lines, 0);
  (*store)->release_loaded();
  (*store)->set_record_source([&](uint64_t first, std::span<LineRecord> out) {
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = LineRecord{};
      if (!in_use[first + i]) continue;
      out[i].core_line = first + i;
      for (uint32_t k = 0; k < 8; ++k) out[i].valid.set(k), out[i].dirty.set(k);
    }
  });
  uint64_t x = 88172645463325252ull;  // xorshift64: the same moves in every build
  auto next = [&] { x ^= x << 13, x ^= x >> 7, x ^= x << 17; return x % lines; };
  std::vector<Sample> samples;
  for (uint64_t done = 0; done < c.writes; done += c.per_persist) {
    loop->run_sync([&] {
      for (uint64_t i = 0; i < c.per_persist; ++i) {
        uint64_t to = next(), from = next();
        in_use[to] = 1;
        in_use[from] = 0;
        (*store)->mark_changed(to);
        (*store)->mark_changed(from);
      }
    });
    Sample before{ssd.writes, ssd.flushes, ssd.bytes, 0, 0, 0, 0};
    const MetadataCounters counted = (*store)->counters();
    auto t0 = std::chrono::steady_clock::now();
    s = loop->call<Status>([&](auto cb) { (*store)->persist(cb); });
    if (!s.ok()) Die("persist", s);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const MetadataCounters now = (*store)->counters();
    samples.push_back({ssd.writes - before.writes, ssd.flushes - before.flushes,
                       ssd.bytes - before.bytes, ms, now.steps - counted.steps,
                       now.checkpoints - counted.checkpoints, now.journal_blocks_used});
  }
  Report(std::move(samples), c, (*store)->counters());
  store->reset();
  unlink(path.c_str());
}

}  // namespace
}  // namespace tiercache

int main(int argc, char** argv) {
  tiercache::Config c;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--dir") {
      c.dir = v;
    } else if (k == "--steps") {
      if (tiercache::Status s = tiercache::ParseJournalSteps(v, c.store); !s.ok()) {
        std::fprintf(stderr, "--steps: %s\n", s.ToString().c_str());
        return 2;
      }
    } else if (k == "--size" || k == "--writes" || k == "--per-persist") {
      auto n = tiercache::ParseSize(v);
      if (!n.ok()) {
        std::fprintf(stderr, "%s: %s\n", k.c_str(), n.status().ToString().c_str());
        return 2;
      }
      (k == "--size" ? c.size : k == "--writes" ? c.writes : c.per_persist) = *n;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--dir DIR] [--size 100G] [--writes N] [--per-persist N] "
                   "[--steps ONE/N,FOUR/N]\n",
                   argv[0]);
      return 2;
    }
  }
  tiercache::Run(c);
  return 0;
}
