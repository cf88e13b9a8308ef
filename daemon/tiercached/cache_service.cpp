#include "daemon/tiercached/cache_service.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <vector>

#include "cachelib/device/file_device.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/superblock.h"
#include "daemon/tiercached/device_stack.h"

namespace tiercache {

struct CacheService::Devices {
  DeviceStack ssd, core;
  CoreIdentity core_id;
};

Result<Superblock> RecordedSuperblock(const std::string& cache_path) {
  int fd = open(cache_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "open " + cache_path);
  std::vector<std::byte> area(format::kSuperblockAreaSize);
  ssize_t n = pread(fd, area.data(), area.size(), 0);
  int err = errno;
  close(fd);
  if (n < 0) return Status::FromErrno(err, "read superblock of " + cache_path);
  if (size_t(n) < area.size()) return Status::NotFound(cache_path + ": too small to be a cache");
  auto sb = LoadSuperblock(area, cache_path);
  if (!sb.ok()) return sb.status();
  return sb->sb;
}

Result<std::unique_ptr<CacheService>> CacheService::Open(const DaemonConfig& config_in,
                                                         LoopThread& main_loop) {
  DaemonConfig config = config_in;
  // The superblock gives the default core and the sequential options --seq-cutoff adjusts;
  // without a need for it, Cache::Open is the one to explain a missing or damaged superblock.
  SequentialOptions recorded_sequential;
  if (config.core_path.empty() || config.seq_cutoff_bytes) {
    auto recorded = RecordedSuperblock(config.cache_path);
    if (!recorded.ok()) return recorded.status();
    if (config.core_path.empty()) config.core_path = recorded->core.path;
    recorded_sequential = recorded->policies.sequential;
  }
  auto devices = std::make_unique<Devices>();
  auto core_id = IdentifyCore(config.core_path);
  if (!core_id.ok()) return core_id.status();
  devices->core_id = *core_id;
  TC_RETURN_IF_ERROR(devices->ssd.open(config.cache_path, config.buffered, config.cache_model,
                                       config.models_file, main_loop.loop()));
  TC_RETURN_IF_ERROR(devices->core.open(config.core_path, config.buffered, config.core_model,
                                        config.models_file, main_loop.loop()));
  std::unique_ptr<CacheService> service(new CacheService(config, main_loop, std::move(devices)));
  CacheOptions options;
  options.background_loop = &main_loop.loop();
  options.policies = PolicyOverridesFor(config, recorded_sequential);
  // The kernel keeps a ublk device's acknowledgements across a crash of this process (user
  // recovery): no acknowledged write may then depend on records still in memory.
  options.commit_before_ack = config.commit_acks;
  std::promise<Result<std::unique_ptr<Cache>>> opened;
  main_loop.loop().post([&] {
    Cache::Open(service->devices_->ssd.top(), service->devices_->core.top(),
                service->devices_->core_id, options,
                [&](Result<std::unique_ptr<Cache>> r) { opened.set_value(std::move(r)); });
  });
  auto cache = opened.get_future().get();
  if (!cache.ok()) return cache.status();
  service->cache_ = std::move(cache).value();
  service->policies_ = options.policies.apply(service->cache_->info().policies);
  return service;
}

CacheService::CacheService(const DaemonConfig& config, LoopThread& loop,
                           std::unique_ptr<Devices> devices)
    : config_(config),
      loop_(loop),
      devices_(std::move(devices)),
      started_(SteadyClock::instance().now()) {}

CacheService::~CacheService() {
  // The Cache and devices must go away on the loop they registered with.
  loop_.run_sync([this] {
    cache_.reset();
    devices_.reset();
  });
}

void CacheService::close(DoneCallback done) {
  loop_.loop().post([this, done = std::move(done)]() mutable { cache_->close(std::move(done)); });
}

ControlStatus CacheService::status() const {
  ControlStatus s;
  s.state = stopping_ ? "stopping" : "running";
  s.pid = getpid();
  s.uptime_seconds = uint64_t((SteadyClock::instance().now() - started_).count() / 1'000'000'000);
  s.cache_path = config_.cache_path;
  s.core_path = config_.core_path;
  s.export_path = export_path_;
  s.cache_size = devices_->ssd.top().size();
  s.core_size = devices_->core.top().size();
  s.superblock = cache_->info();
  s.policies = policies_;
  return s;
}

void CacheService::set_mode(CacheMode mode, bool drain, DoneCallback done) {
  cache_->set_mode(mode, drain, std::move(done));
}

void CacheService::clean_all(ProgressCallback progress, DoneCallback done) {
  cache_->clean_all(std::move(progress), std::move(done));
}

void CacheService::stop(DoneCallback done) {
  if (stopping_.exchange(true) || !shutdown_) {
    return done(Status::Busy("tiercached is already stopping"));
  }
  shutdown_(std::move(done));
}

}  // namespace tiercache
