// RAM per cached 4 KiB line and load time of large caches (issue: <= 16 bytes per 4 KiB line,
// policy state included; opening a 100 GiB cache, clean and after kill -9, <= 2 s of loading).
// For each SSD size: format sparse files; open the empty cache, run a short random workload, close;
// reopen (clean load of a warm cache), run the workload again, report RSS and die without closing
// (as kill -9 would); reopen (load after the crash) and close.
// Every phase runs in its own process so RSS and timings belong to that phase only.
// Run: build/bench/memory/cache_memory_benchmark --dir /var/tmp --sizes 1G,100G
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <random>
#include <string>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/size_parser.h"
#include "cachelib/device/file_device.h"
#include "cachelib/engine/cache.h"

namespace tiercache {
namespace {

struct Config {
  std::string dir = "/var/tmp";
  std::vector<uint64_t> sizes = {1ull << 30, 100ull << 30};
  uint64_t ops = 100000;
  PolicyOptions policies;  // admission and replacement are applied
};

uint64_t RssBytes() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

// Runs an asynchronous call on the loop thread and waits for its Status.
template <typename T, typename Fn>
T OnLoop(LoopThread& t, Fn fn) {
  std::promise<T> p;
  t.run_sync([&] { fn([&p](T v) { p.set_value(std::move(v)); }); });
  return p.get_future().get();
}

struct Devices {
  std::unique_ptr<FileDevice> ssd, core;
  CoreIdentity id;
};

Devices OpenFiles(const Config& c, uint64_t size) {
  const std::string base = c.dir + "/tiercache-mem-" + std::to_string(size >> 20) + "M";
  Devices d;
  d.ssd = std::move(FileDevice::Open(base + ".ssd")).value();
  d.core = std::move(FileDevice::Open(base + ".core")).value();
  d.id = CoreIdentity{base + ".core", d.core->size(), 0x6d656d};
  return d;
}

void Create(const Config& c, uint64_t size) {
  const std::string base = c.dir + "/tiercache-mem-" + std::to_string(size >> 20) + "M";
  // The core is 4x the SSD, so the random workload misses and fills.
  if (truncate((base + ".ssd").c_str(), 0) != 0 && errno != ENOENT) std::perror("truncate");
  std::ofstream(base + ".ssd").close();
  std::ofstream(base + ".core").close();
  if (truncate((base + ".ssd").c_str(), off_t(size)) != 0 ||
      truncate((base + ".core").c_str(), off_t(size * 4)) != 0) {
    std::perror("truncate");
    std::exit(1);
  }
  auto loop = std::move(LoopThread::Start("mem")).value();
  Devices d = OpenFiles(c, size);
  FormatOptions f;
  f.force = true;
  Status s = OnLoop<Status>(*loop, [&](auto cb) { MetadataStore::Format(*d.ssd, d.id, f, cb); });
  if (!s.ok()) {
    std::fprintf(stderr, "format: %s\n", s.ToString().c_str());
    std::exit(1);
  }
}

enum class Then { kClose, kWorkloadClose, kWorkloadDie };

// Opens the cache (timed), then as `then` says.
void OpenPhase(const Config& c, uint64_t size, Then then, const char* label) {
  auto loop = std::move(LoopThread::Start("mem")).value();
  auto bg = std::move(LoopThread::Start("bg")).value();
  Devices d = OpenFiles(c, size);
  CacheOptions o;
  o.background_loop = &bg->loop();
  o.policies.admission = c.policies.admission;
  o.policies.replacement = c.policies.replacement;
  const uint64_t rss_before = RssBytes();
  auto t0 = std::chrono::steady_clock::now();
  using R = Result<std::unique_ptr<Cache>>;
  R cache = OnLoop<R>(*loop, [&](auto cb) { Cache::Open(*d.ssd, *d.core, d.id, o, cb); });
  double open_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!cache.ok()) {
    std::fprintf(stderr, "open: %s\n", cache.status().ToString().c_str());
    std::exit(1);
  }
  CacheCounters counters = (*cache)->counters();
  std::printf("%-8s %6lluG %-13s open %.3f s  lines %llu used %llu", label,
              (unsigned long long)(size >> 30), "", open_s,
              (unsigned long long)counters.lines_total, (unsigned long long)counters.lines_used);
  if (then != Then::kClose) {
    std::mt19937_64 rng(size);
    std::vector<std::byte> buf(4096, std::byte{7});
    const uint64_t blocks = d.core->size() / 4096;
    for (uint64_t i = 0; i < c.ops; ++i) {
      uint64_t off = rng() % blocks * 4096;
      Status s = i % 4 == 0
          ? OnLoop<Status>(*loop, [&](auto cb) { (*cache)->write(off, buf, {}, cb); })
          : OnLoop<Status>(*loop, [&](auto cb) { (*cache)->read(off, std::span(buf), cb); });
      if (!s.ok()) std::exit(1);
    }
    counters = (*cache)->counters();
    std::printf(" -> used %llu  RSS %llu MiB (%llu MiB before open)",
                (unsigned long long)counters.lines_used, (unsigned long long)(RssBytes() >> 20),
                (unsigned long long)(rss_before >> 20));
    std::printf("\n");
    if (then == Then::kWorkloadDie) {
      std::ofstream(c.dir + "/tiercache-mem-result", std::ios::app)
          << RssBytes() << " " << counters.lines_total << "\n";
      std::fflush(stdout);
      _exit(0);  // as kill -9: no close, no flush
    }
  } else {
    std::printf("\n");
  }
  Status s = OnLoop<Status>(*loop, [&](auto cb) { (*cache)->close(cb); });
  if (!s.ok()) std::exit(1);
}

template <typename Fn>
void InChild(Fn fn) {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    fn();
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "phase failed\n");
    std::exit(1);
  }
}

// --sizes entries ("1G", "100G"); a bad one is a usage error.
uint64_t SizeArg(const std::string& s) {
  Result<uint64_t> size = ParseSize(s);
  if (!size.ok()) {
    std::fprintf(stderr, "--sizes: %s\n", size.status().message().c_str());
    std::exit(2);
  }
  return *size;
}

}  // namespace
}  // namespace tiercache

int main(int argc, char** argv) {
  using namespace tiercache;
  Config c;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--dir") {
      c.dir = v;
    } else if (k == "--ops") {
      c.ops = std::stoull(v);
    } else if (k == "--admission") {
      c.policies.admission = v;
    } else if (k == "--replacement") {
      c.policies.replacement = v;
    } else if (k == "--sizes") {
      c.sizes.clear();
      for (size_t at = 0; at < v.size();) {
        size_t comma = v.find(',', at);
        if (comma == std::string::npos) comma = v.size();
        c.sizes.push_back(SizeArg(v.substr(at, comma - at)));
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr, "usage: %s [--dir D] [--sizes 1G,100G] [--ops N] [--admission A]"
                           " [--replacement R]\n", argv[0]);
      return 2;
    }
  }
  std::printf("policies: admission %s, replacement %s; %llu random 4 KiB requests (1/4 writes)\n",
              c.policies.admission.c_str(), c.policies.replacement.c_str(),
              (unsigned long long)c.ops);
  const std::string results = c.dir + "/tiercache-mem-result";
  std::remove(results.c_str());
  for (uint64_t size : c.sizes) {
    InChild([&] { Create(c, size); });
    InChild([&] { OpenPhase(c, size, Then::kWorkloadClose, "empty"); });
    InChild([&] { OpenPhase(c, size, Then::kWorkloadDie, "clean"); });
    InChild([&] { OpenPhase(c, size, Then::kClose, "kill -9"); });
  }
  std::ifstream in(results);
  std::vector<std::pair<uint64_t, uint64_t>> rss_lines;
  for (uint64_t rss, lines; in >> rss >> lines;) rss_lines.emplace_back(rss, lines);
  if (rss_lines.size() >= 2) {
    auto [rss_small, lines_small] = rss_lines.front();
    auto [rss_big, lines_big] = rss_lines.back();
    std::printf("RAM per 4 KiB line: (%llu - %llu) bytes / (%llu - %llu) lines = %.2f bytes\n",
                (unsigned long long)rss_big, (unsigned long long)rss_small,
                (unsigned long long)lines_big, (unsigned long long)lines_small,
                double(rss_big - rss_small) / double(lines_big - lines_small));
  }
  for (uint64_t size : c.sizes) {
    const std::string base = c.dir + "/tiercache-mem-" + std::to_string(size >> 20) + "M";
    std::remove((base + ".ssd").c_str());
    std::remove((base + ".core").c_str());
  }
  std::remove(results.c_str());
  return 0;
}
