// Shard-lock holds of a live replacement-policy change (Cache::set_policies) on a large, full
// cache, and what a foreground reader waits meanwhile. Formats sparse files (4 KiB lines, every
// miss admitted, no sequential bypass), fills every line by reading the core, then switches the
// replacement policy several ways while a second thread reads cached blocks, one at a time.
// Timed trust rounds are off (only the change takes the shard locks): one round runs after the
// fill, while the reader runs, and its holds are shown first (TrustRoundReport; --trust-batch N
// entries per hold, 0: a whole shard per hold, as before trust rounds went in steps). The SSD's data writes are dropped
// (the data area stays a hole, read back as zeros): only the metadata is written, so a 100 GiB
// cache fits on a smaller disk and fills in minutes.
// Per switch: shards, holds, longest and mean hold, total time (PolicySwapReport, as logged by
// event=policy_swap), and the reader's latency mean/max while the change ran.
// Run: build/bench/policy-swap/policy_swap_benchmark --dir /var/tmp --size 100G [--trust-batch N]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/size_parser.h"
#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/file_device.h"
#include "cachelib/engine/cache.h"

namespace tiercache {
namespace {

using Clock = std::chrono::steady_clock;

struct Config {
  std::string dir = "/var/tmp";
  uint64_t size = 100ull << 30;
  // Replacement policies in turn: the cache is created with the first.
  std::vector<std::string> sequence = {"lru", "clock", "s3fifo", "sieve", "lru"};
  uint32_t trust_batch = CacheOptions{}.trust_batch;
};

// The SSD: metadata reaches the file, data writes at or past `drop_from` complete unwritten.
class DataDroppingDevice final : public DeviceWrapper {
 public:
  using DeviceWrapper::DeviceWrapper;
  std::atomic<uint64_t> drop_from{~uint64_t{0}};

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    if (offset >= drop_from.load(std::memory_order_relaxed)) return cb(Status::Ok());
    DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
  }
};

void Check(const Status& s, const char* what) {
  if (s.ok()) return;
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  std::exit(1);
}

double Us(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }
double Ms(Nanos n) { return double(n.count()) / 1e6; }

// Reads random cached 4 KiB blocks one at a time on its own loop, recording when each started
// and how long it took.
class ForegroundReader {
 public:
  // `loop` must outlive the devices under the cache (they watch every loop that used them).
  ForegroundReader(Cache& cache, uint64_t blocks, LoopThread& loop)
      : cache_(cache), blocks_(blocks), loop_(loop) {
    thread_ = std::thread([this] { run(); });
  }
  ~ForegroundReader() {
    stop_ = true;
    thread_.join();
  }
  struct Figures {
    uint64_t reads = 0;
    double mean_us = 0, max_us = 0;
  };
  // The reads that started within [from, to).
  Figures between(Clock::time_point from, Clock::time_point to) {
    std::lock_guard lock(mu_);
    Figures f;
    double sum = 0;
    for (const auto& [start, us] : samples_) {
      if (start < from || start >= to) continue;
      ++f.reads;
      sum += us;
      f.max_us = std::max(f.max_us, us);
    }
    f.mean_us = f.reads ? sum / double(f.reads) : 0;
    return f;
  }

 private:
  void run() {
    std::mt19937_64 rng(7);
    std::vector<std::byte> buf(4096);
    while (!stop_) {
      const uint64_t off = rng() % blocks_ * 4096;
      const auto t0 = Clock::now();
      Check(loop_.call<Status>([&](auto cb) { cache_.read(off, std::span(buf), cb); }),
            "foreground read");
      const double us = Us(Clock::now() - t0);
      std::lock_guard lock(mu_);
      samples_.emplace_back(t0, us);
    }
  }
  Cache& cache_;
  const uint64_t blocks_;
  LoopThread& loop_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::pair<Clock::time_point, double>> samples_;  // GUARDED_BY(mu_)
  std::thread thread_;
};

PolicyOptions Replacement(const std::string& name) {
  return {.admission = "always", .replacement = name,
          .sequential = SequentialOptions{.enabled = false}};
}

// One trust round over the filled cache (every line untrusted), with the reader running: its
// waits during the walks and the core flush (the report's total), then during the persist.
void TrustRound(Cache& cache, LoopThread& loop, ForegroundReader& reader) {
  const auto t0 = Clock::now();
  Check(loop.call<Status>([&](auto cb) { cache.trust_round(cb); }), "trust round");
  const auto t2 = Clock::now();
  const TrustRoundReport r = cache.last_trust_round();
  const auto t1 = t0 + std::chrono::duration_cast<Clock::duration>(r.total);
  const auto walks = reader.between(t0, t1), persist = reader.between(t1, t2);
  std::printf("trust round: %llu lines trusted, %llu holds, longest %.2f ms, mean %.3f ms; "
              "walks and core flush %.1f ms: fg reads %llu, mean %.1f us, max %.1f us; "
              "persist %.1f ms: fg reads %llu, mean %.1f us, max %.1f us\n",
              (unsigned long long)r.trusted, (unsigned long long)r.holds, Ms(r.longest_hold),
              r.holds ? Ms(r.total_hold) / double(r.holds) : 0.0, Ms(r.total),
              (unsigned long long)walks.reads, walks.mean_us, walks.max_us, Us(t2 - t1) / 1e3,
              (unsigned long long)persist.reads, persist.mean_us, persist.max_us);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the reader runs alone again
}

void Run(const Config& c) {
  const std::string base = c.dir + "/tiercache-swap-" + std::to_string(c.size >> 20) + "M";
  const std::string ssd_path = base + ".ssd", core_path = base + ".core";
  for (const auto& [path, bytes] : {std::pair{ssd_path, c.size}, {core_path, c.size * 2}}) {
    std::ofstream(path, std::ios::trunc).close();
    if (truncate(path.c_str(), off_t(bytes)) != 0) {
      std::perror("truncate");
      std::exit(1);
    }
  }
  auto loop = std::move(LoopThread::Start("main")).value();
  auto bg = std::move(LoopThread::Start("bg")).value();
  auto fg = std::move(LoopThread::Start("fg")).value();  // the foreground reader's
  auto ssd_file = std::move(FileDevice::Open(ssd_path)).value();
  auto core = std::move(FileDevice::Open(core_path)).value();
  DataDroppingDevice ssd(*ssd_file);
  const CoreIdentity id{core_path, core->size(), 0x73776170};
  FormatOptions f;
  f.force = true;
  f.policies = Replacement(c.sequence.front());
  Check(loop->call<Status>([&](auto cb) { MetadataStore::Format(ssd, id, f, cb); }), "format");
  CacheOptions o;
  o.background_loop = &bg->loop();
  o.stream_readahead_bytes = 0;
  // No timed trust rounds: the one run after the fill is measured apart; only the change should
  // take the shard locks while it runs.
  o.trust_interval = Nanos(0);
  o.trust_batch = c.trust_batch;
  using R = Result<std::unique_ptr<Cache>>;
  R opened = loop->call<R>([&](auto cb) { Cache::Open(ssd, *core, id, o, cb); });
  Check(opened.status(), "open");
  Cache& cache = **opened;
  ssd.drop_from = cache.info().data_offset;

  // Fill: every line, 1 MiB reads of the core in order (each a miss the cache admits).
  const auto fill0 = Clock::now();
  const uint64_t bytes = cache.counters().lines_total * 4096;
  std::vector<std::byte> chunk(1 << 20);
  for (uint64_t off = 0; off < bytes; off += chunk.size()) {
    const auto part = std::span(chunk).first(std::min<uint64_t>(chunk.size(), bytes - off));
    Check(loop->call<Status>([&](auto cb) { cache.read(off, part, cb); }), "fill");
  }
  // Fills finish in the background: wait until the lines stop growing.
  for (uint64_t used = 0; used != cache.counters().lines_used;) {
    used = cache.counters().lines_used;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  const CacheCounters filled = cache.counters();
  std::printf("cache %llu GiB: %llu lines, %llu used after the fill (%.1f s)\n",
              (unsigned long long)(c.size >> 30), (unsigned long long)filled.lines_total,
              (unsigned long long)filled.lines_used, Us(Clock::now() - fill0) / 1e6);

  auto reader = std::make_unique<ForegroundReader>(cache, bytes / 4096, *fg);
  const auto idle0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const auto idle = reader->between(idle0, Clock::now());
  std::printf("foreground reads with no change running: %llu, mean %.1f us, max %.1f us\n",
              (unsigned long long)idle.reads, idle.mean_us, idle.max_us);
  TrustRound(cache, *loop, *reader);
  std::printf("%-16s %6s %6s %10s %10s %9s %10s %12s %12s\n", "switch", "shards", "holds",
              "longest ms", "mean ms", "total ms", "fg reads", "fg mean us", "fg max us");
  for (size_t i = 1; i < c.sequence.size(); ++i) {
    const auto t0 = Clock::now();
    const PolicyOptions next = Replacement(c.sequence[i]);
    Check(loop->call<Status>([&](auto cb) { cache.set_policies(next, cb); }), "set_policies");
    const auto t1 = Clock::now();
    const PolicySwapReport r = cache.last_policy_swap();
    const auto fg = reader->between(t0, t1);
    const std::string name = c.sequence[i - 1] + " -> " + c.sequence[i];
    std::printf("%-16s %6u %6llu %10.2f %10.3f %9.1f %10llu %12.1f %12.1f\n", name.c_str(),
                r.shards, (unsigned long long)r.holds, Ms(r.longest_hold),
                r.holds ? Ms(r.total_hold) / double(r.holds) : 0.0, Ms(r.total),
                (unsigned long long)fg.reads, fg.mean_us, fg.max_us);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the reader runs alone again
  }
  reader.reset();  // no I/O may start once close() is called
  Check(loop->call<Status>([&](auto cb) { cache.close(cb); }), "close");
  std::remove(ssd_path.c_str());
  std::remove(core_path.c_str());
}

}  // namespace
}  // namespace tiercache

int main(int argc, char** argv) {
  using namespace tiercache;
  Config c;
  setvbuf(stdout, nullptr, _IOLBF, 0);  // rows and logged events in the order they happen
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--dir") {
      c.dir = v;
    } else if (k == "--size") {
      Result<uint64_t> size = ParseSize(v);
      if (!size.ok()) {
        std::fprintf(stderr, "--size: %s\n", size.status().message().c_str());
        return 2;
      }
      c.size = *size;
    } else if (k == "--trust-batch") {
      c.trust_batch = uint32_t(std::stoul(v));
    } else {
      std::fprintf(stderr, "usage: %s [--dir D] [--size 100G] [--trust-batch N]\n", argv[0]);
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "usage: %s [--dir D] [--size 100G] [--trust-batch N]\n", argv[0]);
    return 2;
  }
  Run(c);
  return 0;
}
