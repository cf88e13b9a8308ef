// Cleaner write-back rate (issue 9, "when idle it drains in LBA order, coalesced, at >= 80% of the
// HDD model's sequential write rate for sequential dirty data"). In virtual time, on the device
// models tiercache-bench uses (cachelib/device/models):
//   hdd    the HDD model writes `bytes` sequentially in `request`-sized writes, then flushes;
//   drain  a write-back cache (SSD model + the same HDD model) takes the same writes, stays dirty
//          (the cache is large enough), then sits idle: the cleaner drains it. Its rate counts from
//          the cleaner's first core write to its last core completion (write or flush).
// With --stride larger than --request the writes are scattered (one every `stride` bytes): the
// rate of a drain of random dirty blocks, which --writes-in-flight trades against how long a
// client write may wait for a running batch.
// Prints both rates and their ratio, and checks the core holds the written bytes.
// Run: build/bench/cleaner/cleaner_drain_benchmark [--bytes 256M] [--hdd-model hdd7200]
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <vector>

#include "bench/runner/loop_driver.h"
#include "cachelib/common/size_parser.h"
#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/memory_device.h"
#include "cachelib/device/models/model_profiles.h"
#include "cachelib/engine/cache.h"
#include "cachelib/metadata/metadata_store.h"

namespace tiercache::bench {
namespace {

struct Config {
  std::string hdd_model = "hdd7200", ssd_model = "sata-ssd";
  uint64_t bytes = 256ull << 20;    // data written, from offset 0
  uint64_t request = 1ull << 20;    // bytes per client write
  uint64_t stride = 0;              // bytes from one write's start to the next; 0: request
  uint32_t depth = 1;               // client writes in flight
  uint32_t line_size = 4096;        // cache line size
  uint64_t cache_bytes = 0;         // SSD size; 0: 8 x Span() (stays below the dirty target)
  uint64_t max_write_bytes = 0;     // cleaner coalescing bound; 0: the default
  uint32_t idle_batch_blocks = 0;   // cleaner batch when idle; 0: the default
  uint32_t writes_in_flight = 0;    // cleaner core writes in flight; 0: the default
  uint32_t max_batch_runs = 0;      // cleaner runs of adjacent lines per batch; 0: the default
  uint64_t Stride() const { return stride > 0 ? stride : request; }
  uint64_t Span() const { return bytes / request * Stride(); }  // bytes from the first to the end
};

// Times the core I/O the cleaner issues: the first write's submission, the last completion.
class TimingDevice final : public DeviceWrapper {
 public:
  TimingDevice(Device& target, EventLoop& loop) : DeviceWrapper(target), loop_(loop) {}
  uint64_t writes = 0;
  Nanos first_write{-1}, last_done{0};

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    if (writes++ == 0) first_write = loop_.clock().now();
    DeviceWrapper::write_impl(offset, buf, flags, stamp(std::move(cb)));
  }
  void flush_impl(IoCallback cb) override { DeviceWrapper::flush_impl(stamp(std::move(cb))); }

 private:
  IoCallback stamp(IoCallback cb) {
    return [this, cb = std::move(cb)](Status s) {
      last_done = loop_.clock().now();
      cb(std::move(s));
    };
  }
  EventLoop& loop_;
};

// Byte i of the data: depends on its offset, so a misplaced sector shows.
void Fill(uint64_t offset, std::span<std::byte> out) {
  for (size_t i = 0; i < out.size(); i += 8) {
    uint64_t v = (offset + i) * 0x9E3779B97F4A7C15ull;
    std::memcpy(out.data() + i, &v, std::min<size_t>(8, out.size() - i));
  }
}

// Writes c.bytes to `dev` in c.request writes at 0, stride, 2 x stride..., c.depth in flight;
// then flushes if `flush`.
Status WriteSequential(LoopDriver& driver, Device& dev, const Config& c, bool flush) {
  const uint32_t depth = std::max<uint32_t>(1, c.depth);
  std::vector<std::vector<std::byte>> bufs(depth, std::vector<std::byte>(c.request));
  uint64_t next = 0, in_flight = 0;
  Status first;
  std::function<void(uint32_t, LoopDriver::Finish)> issue;
  issue = [&](uint32_t slot, LoopDriver::Finish finish) {
    if (next >= c.Span() || !first.ok()) {
      if (in_flight > 0) return;
      if (!flush || !first.ok()) return finish();
      return dev.flush([&, finish](Status s) {
        if (first.ok()) first = s;
        finish();
      });
    }
    const uint64_t off = next;
    next += c.Stride();
    ++in_flight;
    Fill(off, bufs[slot]);
    dev.write(off, bufs[slot], {}, [&, slot, finish](Status s) {
      --in_flight;
      if (!s.ok() && first.ok()) first = s;
      issue(slot, finish);
    });
  };
  const bool ok = driver.run([&](LoopDriver::Finish finish) {
    for (uint32_t slot = 0; slot < depth; ++slot) issue(slot, finish);
  });
  if (!ok) return Status::IoError("a write never completed");
  return first;
}

double MbPerS(uint64_t bytes, Nanos t) {
  return t.count() > 0 ? double(bytes) * 1e3 / double(t.count()) : 0;
}

// The HDD model alone writing the data: its sequential write rate.
Result<Nanos> HddAlone(const Config& c, const ModelProfile& hdd) {
  auto driver = LoopDriver::Create(false);
  if (!driver.ok()) return driver.status();
  MemoryDevice mem("hdd", hdd.hdd.capacity_bytes, 512);
  auto model = MakeModelDevice(hdd, mem);
  if (!model.ok()) return model.status();
  const Nanos start = (*driver)->now();
  TC_RETURN_IF_ERROR(WriteSequential(**driver, **model, c, true));
  return (*driver)->now() - start;
}

Status FormatCache(LoopDriver& driver, Device& ssd, const CoreIdentity& core, const Config& c) {
  FormatOptions format;
  format.mode = CacheMode::kWriteBack;
  format.line_size = c.line_size;
  return Await<Status>(
      driver, [&](auto done) { MetadataStore::Format(ssd, core, format, std::move(done)); },
      Status::IoError("format never completed"));
}

CacheOptions DrainOptions(LoopDriver& driver, const Config& c) {
  CacheOptions o;
  o.background_loop = &driver.loop();
  // Every write is cached (no sequential bypass), so all of it is written back by the cleaner.
  o.policies.admission = "always";
  o.policies.sequential = SequentialOptions{.enabled = false};
  if (c.max_write_bytes > 0) o.cleaning_options.max_write_bytes = c.max_write_bytes;
  if (c.idle_batch_blocks > 0) o.cleaning_options.idle_batch_blocks = c.idle_batch_blocks;
  if (c.writes_in_flight > 0) o.cleaning_options.writes_in_flight = c.writes_in_flight;
  if (c.max_batch_runs > 0) o.cleaning_options.max_batch_runs = c.max_batch_runs;
  return o;
}

// Lets the cache idle until nothing is dirty (at most an hour of virtual time).
Status IdleUntilClean(LoopDriver& driver, Cache& cache) {
  for (int i = 0; i < 360000 && cache.counters().lines_dirty > 0; ++i) {
    driver.idle(std::chrono::milliseconds(10));
  }
  if (cache.counters().lines_dirty > 0) return Status::IoError("the cleaner did not drain");
  return Status::Ok();
}

Status CheckCore(const MemoryDevice& core, const Config& c) {
  std::vector<std::byte> got(c.request), want(c.request);
  for (uint64_t off = 0; off < c.Span(); off += c.Stride()) {
    core.read_now(off, got);
    Fill(off, want);
    if (got != want) return Status::Corruption("core differs at " + std::to_string(off));
  }
  return Status::Ok();
}

struct Drain {
  Nanos time{0};
  uint64_t core_writes = 0, before_idle = 0;
  uint64_t core_bytes = 0;  // written by the cleaner: more than the data if lines went twice
};

// A write-back cache takes the data, then drains it while idle.
Result<Drain> CleanerDrain(const Config& c, const ModelProfile& hdd, const ModelProfile& ssd) {
  auto d = LoopDriver::Create(false);
  if (!d.ok()) return d.status();
  LoopDriver& driver = **d;
  const uint64_t cache_bytes = c.cache_bytes > 0 ? c.cache_bytes : 8 * c.Span();
  MemoryDevice ssd_mem("ssd", cache_bytes, 4096), hdd_mem("hdd", hdd.hdd.capacity_bytes, 512);
  auto ssd_model = MakeModelDevice(ssd, ssd_mem);
  auto hdd_model = MakeModelDevice(hdd, hdd_mem);
  if (!ssd_model.ok()) return ssd_model.status();
  if (!hdd_model.ok()) return hdd_model.status();
  TimingDevice core(**hdd_model, driver.loop());
  const CoreIdentity id{"bench:" + hdd.name, core.size(), 0x636c65616e6572ull};
  TC_RETURN_IF_ERROR(FormatCache(driver, **ssd_model, id, c));
  using Opened = Result<std::unique_ptr<Cache>>;
  Opened cache = Await<Opened>(
      driver,
      [&](auto done) { Cache::Open(**ssd_model, core, id, DrainOptions(driver, c), done); },
      Status::IoError("open never completed"));
  if (!cache.ok()) return cache.status();
  TC_RETURN_IF_ERROR(WriteSequential(driver, **cache, c, false));
  Drain r;
  r.before_idle = core.writes;
  TC_RETURN_IF_ERROR(IdleUntilClean(driver, **cache));
  r.time = core.last_done - core.first_write;
  r.core_writes = core.writes - r.before_idle;
  r.core_bytes = (*cache)->counters().bytes_written_core;
  Status closed = Await<Status>(
      driver, [&](auto done) { (*cache)->close(done); }, Status::IoError("close never completed"));
  TC_RETURN_IF_ERROR(closed);
  TC_RETURN_IF_ERROR(Await<Status>(
      driver, [&](auto done) { (*hdd_model)->flush(done); }, Status::IoError("flush stalled")));
  TC_RETURN_IF_ERROR(CheckCore(hdd_mem, c));
  return r;
}

int Run(const Config& c) {
  auto profiles = ModelProfiles::Builtin();
  if (!profiles.ok()) return std::fprintf(stderr, "%s\n", profiles.status().ToString().c_str()), 1;
  auto hdd = profiles->find(c.hdd_model);
  auto ssd = profiles->find(c.ssd_model);
  if (!hdd.ok() || !ssd.ok()) {
    std::fprintf(stderr, "%s\n", (hdd.ok() ? ssd.status() : hdd.status()).ToString().c_str());
    return 1;
  }
  Result<Nanos> alone = HddAlone(c, *hdd);
  Result<Drain> drain = CleanerDrain(c, *hdd, *ssd);
  if (!alone.ok() || !drain.ok()) {
    std::fprintf(stderr, "%s\n", (alone.ok() ? drain.status() : alone.status()).ToString().c_str());
    return 1;
  }
  const double hdd_rate = MbPerS(c.bytes, *alone), drain_rate = MbPerS(c.bytes, drain->time);
  std::printf("data: %s in %s writes every %s (depth %u), %s lines; hdd %s, ssd %s\n",
              FormatSize(c.bytes).c_str(), FormatSize(c.request).c_str(),
              FormatSize(c.Stride()).c_str(), c.depth, FormatSize(c.line_size).c_str(),
              c.hdd_model.c_str(), c.ssd_model.c_str());
  std::printf("%-28s %10s %12s %10s\n", "", "time (s)", "rate (MB/s)", "core writes");
  std::printf("%-28s %10.3f %12.1f %10llu\n", "HDD model alone", alone->count() / 1e9,
              hdd_rate, (unsigned long long)(c.bytes / c.request));
  std::printf("%-28s %10.3f %12.1f %10llu\n", "cleaner, idle drain", drain->time.count() / 1e9,
              drain_rate, (unsigned long long)drain->core_writes);
  std::printf("ratio (drain / HDD): %.2fx\n", hdd_rate > 0 ? drain_rate / hdd_rate : 0.0);
  if (drain->core_bytes != c.bytes) {
    std::printf("note: the cleaner wrote %s to the core for %s of data\n",
                FormatSize(drain->core_bytes).c_str(), FormatSize(c.bytes).c_str());
  }
  if (drain->before_idle > 0) {
    std::printf("note: %llu core writes before idle (cache too small?)\n",
                (unsigned long long)drain->before_idle);
  }
  return 0;
}

}  // namespace
}  // namespace tiercache::bench

int main(int argc, char** argv) {
  tiercache::bench::Config c;
  CLI::App app{"Cleaner write-back rate: idle drain vs the HDD model writing the same blocks"};
  std::string bytes = "256M", request = "1M", stride, cache, max_write;
  app.add_option("--hdd-model", c.hdd_model, "HDD profile (hdd7200, hdd5400, hdd10k)");
  app.add_option("--ssd-model", c.ssd_model, "SSD profile (sata-ssd, nvme)");
  app.add_option("--bytes", bytes, "data written (default 256M)");
  app.add_option("--request", request, "bytes per write (default 1M)");
  app.add_option("--stride", stride, "bytes from one write to the next (default: --request)");
  app.add_option("--depth", c.depth, "writes in flight (default 1)");
  app.add_option("--line-size", c.line_size, "cache line size in bytes (default 4096)");
  app.add_option("--cache-size", cache, "SSD size (default 8 x the span written)");
  app.add_option("--max-write", max_write, "cleaner coalescing bound (default: the option's)");
  app.add_option("--idle-batch", c.idle_batch_blocks,
                 "cleaner 4 KiB blocks per idle batch (default: the option's)");
  app.add_option("--writes-in-flight", c.writes_in_flight,
                 "cleaner core writes in flight (default: the option's)");
  app.add_option("--max-batch-runs", c.max_batch_runs,
                 "cleaner runs of adjacent lines per batch (default: the option's)");
  CLI11_PARSE(app, argc, argv);
  for (auto [text, out] : {std::pair{&bytes, &c.bytes}, std::pair{&request, &c.request},
                           std::pair{&cache, &c.cache_bytes}, std::pair{&stride, &c.stride},
                           std::pair{&max_write, &c.max_write_bytes}}) {
    if (text->empty()) continue;
    auto n = tiercache::ParseSize(*text);
    if (!n.ok()) return std::fprintf(stderr, "%s\n", n.status().ToString().c_str()), 2;
    *out = *n;
  }
  if (c.request == 0 || c.request % 4096 != 0 || c.bytes % c.request != 0) {
    std::fprintf(stderr, "--request must be a multiple of 4096 dividing --bytes\n");
    return 2;
  }
  if (c.stride != 0 && (c.stride < c.request || c.stride % 4096 != 0)) {
    std::fprintf(stderr, "--stride must be a multiple of 4096, at least --request\n");
    return 2;
  }
  return tiercache::bench::Run(c);
}
