#include "bench/runner/bench_setup.h"

#include "cachelib/device/memory_device.h"
#include "cachelib/metadata/metadata_store.h"

namespace tiercache::bench {
namespace {

constexpr uint32_t kHddBlock = 512;
constexpr uint32_t kSsdBlock = 4096;

// hdd or ssd alone: a model over a sparse MemoryDevice.
class DiskSetup final : public BenchSetup {
 public:
  DiskSetup(uint64_t size, uint32_t block, bool is_ssd)
      : mem_(is_ssd ? "ssd" : "hdd", size, block), is_ssd_(is_ssd) {}
  Status init(const ModelProfile& profile, uint64_t seed) {
    auto m = MakeModelDevice(profile, mem_, seed);
    if (!m.ok()) return m.status();
    model_ = std::move(m).value();
    return Status::Ok();
  }
  Device& device() override { return *model_; }
  Snapshot snapshot() const override {
    Snapshot s;
    const DeviceStats& st = model_->stats();
    if (is_ssd_) {
      s.ssd_bytes_written = st.bytes_written.load();
    } else {
      s.hdd_bytes_read = st.bytes_read.load();
      s.hdd_bytes_written = st.bytes_written.load();
    }
    return s;
  }
  // Waits for the model's write cache to drain, so no model timer outlives the setup.
  void close(IoCallback done) override { model_->flush(std::move(done)); }

 private:
  MemoryDevice mem_;
  bool is_ssd_;
  std::unique_ptr<Device> model_;
};

// wt or wb: a Cache over the SSD model (cache device) and the HDD model (core).
class CacheSetup final : public BenchSetup {
 public:
  CacheSetup(const SetupEnv& env)
      : ssd_mem_("ssd", env.cache_bytes, kSsdBlock), hdd_mem_("hdd", env.disk_bytes, kHddBlock) {}
  Status init(const SetupEnv& env, CacheMode mode, LoopDriver& driver);
  Device& device() override { return *cache_; }
  Snapshot snapshot() const override {
    Snapshot s;
    s.ssd_bytes_written = ssd_->stats().bytes_written.load();
    s.hdd_bytes_read = hdd_->stats().bytes_read.load();
    s.hdd_bytes_written = hdd_->stats().bytes_written.load();
    s.cache = cache_->counters();
    return s;
  }
  void close(IoCallback done) override {
    cache_->close([this, done = std::move(done)](Status s) {
      if (!s.ok()) return done(std::move(s));
      hdd_->flush(std::move(done));  // drain the disk's write cache too
    });
  }

 private:
  MemoryDevice ssd_mem_, hdd_mem_;
  std::unique_ptr<Device> ssd_, hdd_;
  std::unique_ptr<Cache> cache_;
};

Status CacheSetup::init(const SetupEnv& env, CacheMode mode, LoopDriver& driver) {
  auto ssd = MakeModelDevice(env.ssd, ssd_mem_, env.seed);
  if (!ssd.ok()) return ssd.status();
  auto hdd = MakeModelDevice(env.hdd, hdd_mem_, env.seed);
  if (!hdd.ok()) return hdd.status();
  ssd_ = std::move(ssd).value();
  hdd_ = std::move(hdd).value();
  const CoreIdentity core{"bench:" + env.hdd.name, hdd_->size(), 0x7469657263616368ull};
  FormatOptions format;
  format.mode = mode;
  format.line_size = env.line_size;
  const Status stalled = Status::IoError("the operation never completed");
  TC_RETURN_IF_ERROR(Await<Status>(
      driver,
      [&](std::function<void(Status)> done) {
        MetadataStore::Format(*ssd_, core, format, std::move(done));
      },
      stalled));
  CacheOptions options;
  options.background_loop = &driver.loop();
  env.policies.apply_to(&options);
  using Opened = Result<std::unique_ptr<Cache>>;
  Opened cache = Await<Opened>(
      driver,
      [&](std::function<void(Opened)> done) {
        Cache::Open(*ssd_, *hdd_, core, options, std::move(done));
      },
      stalled);
  if (!cache.ok()) return cache.status();
  cache_ = std::move(cache).value();
  return Status::Ok();
}

}  // namespace

const std::vector<std::string>& BenchSetup::Names() {
  static const std::vector<std::string> names = {"hdd", "ssd", "wt", "wb"};
  return names;
}

Result<std::unique_ptr<BenchSetup>> MakeSetup(std::string_view name, const SetupEnv& env,
                                              LoopDriver& driver) {
  if (name == "hdd" || name == "ssd") {
    const bool is_ssd = name == "ssd";
    auto setup = std::make_unique<DiskSetup>(env.disk_bytes, is_ssd ? kSsdBlock : kHddBlock, is_ssd);
    TC_RETURN_IF_ERROR(setup->init(is_ssd ? env.ssd : env.hdd, env.seed));
    return std::unique_ptr<BenchSetup>(std::move(setup));
  }
  if (name == "wt" || name == "wb") {
    auto setup = std::make_unique<CacheSetup>(env);
    TC_RETURN_IF_ERROR(setup->init(
        env, name == "wt" ? CacheMode::kWriteThrough : CacheMode::kWriteBack, driver));
    return std::unique_ptr<BenchSetup>(std::move(setup));
  }
  if (name == "nbdkit-cache") {
    return Status::NotSupported(
        "setup nbdkit-cache runs only with --realtime and only the synthetic tests (fio against "
        "nbdkit's cache filter); traces replay in-process, where nbdkit cannot run");
  }
  return Status::InvalidArgument("unknown setup '" + std::string(name) +
                                 "' (hdd, ssd, wt, wb)");
}

}  // namespace tiercache::bench
