#include "daemon/tiercached/cache_service.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <vector>

#include "cachelib/device/file_device.h"
#include "cachelib/device/instance_lock.h"
#include "cachelib/device/loop_backing.h"
#include "cachelib/device/models/model_profiles.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/line_record.h"
#include "cachelib/metadata/superblock.h"
#include "daemon/common/periodic_timer.h"
#include "daemon/control/control_paths.h"
#include "daemon/tiercached/device_stack.h"
#include "daemon/tiercached/unwritten_data.h"

namespace tiercache {

struct CacheService::Devices {
  // main.cpp locks the cache; the core's lock keeps two daemons from sharing one core file
  // (O_EXCL does that for block devices, see FileDeviceOptions::exclusive).
  std::unique_ptr<InstanceLock> core_lock;
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
  // A bad timing model is the option's fault: said as such, before a device is opened (else a
  // core model would read as a core refused).
  for (const auto& [flag, model] : {std::pair<const char*, const std::string&>{"--core-model",
                                                                               config.core_model},
                                    {"--cache-model", config.cache_model}}) {
    if (model.empty()) continue;
    auto profile = FindModelProfile(model, config.models_file);
    if (!profile.ok()) {
      return profile.status().with_message(std::string(flag) + ": " + profile.status().message());
    }
  }
  auto devices = std::make_unique<Devices>();
  // A core that cannot be opened, or is not the one the cache was made for, may be owed
  // write-back data: say how much.
  auto refuse_core = [&](const Status& why) {
    return ExplainRefusedCore(why, config.cache_path,
                              CountUnwrittenData(config.cache_path, config.buffered, main_loop));
  };
  auto core_id = IdentifyCore(config.core_path);
  if (!core_id.ok()) return refuse_core(core_id.status());
  // Else its lock would fail below as if another tiercached served it.
  if (IsSameDevice(config.cache_path, *core_id) ||
      SameStorage(config.cache_path, config.core_path)) {
    return Status::InvalidArgument("core " + config.core_path + " is the cache device " +
                                   config.cache_path + " itself");
  }
  auto core_lock = InstanceLock::Acquire(config.core_path);
  if (!core_lock.ok()) {
    const Status& s = core_lock.status();
    return s.code() == Status::Code::kBusy ? Status::Busy("core " + s.message()) : s;
  }
  devices->core_lock = std::move(core_lock).value();
  devices->core_id = *core_id;
  TC_RETURN_IF_ERROR(devices->ssd.open(config.cache_path, config.buffered, config.cache_model,
                                       config.models_file, main_loop.loop(), config.io_backend));
  Status core_opened = devices->core.open(config.core_path, config.buffered, config.core_model,
                                          config.models_file, main_loop.loop(), config.io_backend);
  if (!core_opened.ok()) {
    main_loop.run_sync([&] { devices.reset(); });  // the cache device's queue is on that loop
    return refuse_core(core_opened);
  }
  std::unique_ptr<CacheService> service(new CacheService(config, main_loop, std::move(devices)));
  CacheOptions options;
  options.background_loop = &main_loop.loop();
  options.policies = PolicyOverridesFor(config, recorded_sequential);
  // The kernel keeps a ublk device's acknowledgements across a crash of this process (user
  // recovery): no acknowledged write may then depend on records still in memory.
  options.commit_before_ack = config.commit_acks;
  options.ssd_error_threshold = config.ssd_error_threshold;
  options.ssd_error_window =
      std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(config.ssd_error_window_s));
  options.trust_interval =
      std::chrono::duration_cast<Nanos>(std::chrono::duration<double>(config.trust_interval_s));
  if (config.stream_readahead_bytes) options.stream_readahead_bytes = *config.stream_readahead_bytes;
  if (config.fill_backlog_bytes) options.max_fill_backlog_bytes = *config.fill_backlog_bytes;
  options.cleaning = config.cleaning;
  Result<CleaningOptions> cleaning = CleaningOptionsFor(config);
  if (!cleaning.ok()) return cleaning.status();
  options.cleaning_options = *cleaning;
  if (!config.journal_steps.empty()) {
    TC_RETURN_IF_ERROR(ParseJournalSteps(config.journal_steps, options.store));
  }
  std::promise<Result<std::unique_ptr<Cache>>> opened;
  main_loop.loop().post([&] {
    Cache::Open(service->devices_->ssd.top(), service->devices_->core.top(),
                service->devices_->core_id, options,
                [&](Result<std::unique_ptr<Cache>> r) { opened.set_value(std::move(r)); });
  });
  auto cache = opened.get_future().get();
  if (!cache.ok()) {
    // Another device where the core was (its size or identity differs): the cache's refusal
    // says why; add what the cache holds for its own core.
    auto recorded = RecordedSuperblock(config.cache_path);
    if (recorded.ok() && (recorded->core.size != core_id->size ||
                          recorded->core.fingerprint != core_id->fingerprint)) {
      return refuse_core(cache.status());
    }
    return cache.status();
  }
  service->cache_ = std::move(cache).value();
  main_loop.run_sync([&] {
    CacheService* s = service.get();
    s->deleted_watch_ = std::make_unique<PeriodicTimer>(main_loop.loop(), kDeletedCacheCheck,
                                                        [s] { s->check_cache_file(); });
    s->deleted_watch_->start();
  });
  return service;
}

bool CacheService::check_cache_file() {
  if (cache_file_deleted_ || stopping_ || !devices_->ssd.file().unlinked()) return false;
  cache_file_deleted_ = true;
  // Write-back data would live only in a file that goes with the close, or with a crash: drain
  // it to the core now, and keep no more (write-back becomes write-through).
  const CacheMode mode = cache_->mode();
  const CacheMode next = mode == CacheMode::kWriteBack ? CacheMode::kWriteThrough : mode;
  LogError("cache_file_deleted",
           {{"cache", config_.cache_path},
            {"dirty_lines", std::to_string(cache_->counters().lines_dirty)},
            {"action", "switching to " + std::string(ModeName(next)) +
                           " and writing dirty data back"}});
  set_mode(next, /*drain=*/true, [this](Status s) {
    if (!s.ok()) LogError("cache_file_deleted", {{"cache", config_.cache_path},
                                                 {"error", s.ToString()}});
  });
  return true;
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
    deleted_watch_.reset();
    cache_.reset();
    devices_.reset();
  });
}

void CacheService::close(DoneCallback done) {
  // Also on SIGTERM: a detach still cleaning must then not switch the mode back.
  stopping_ = true;
  loop_.loop().post([this, done = std::move(done)]() mutable {
    deleted_watch_.reset();
    // A cache file deleted while served (QA, 2026-12-07: `rm ssd.img; tiercache stop` lost every
    // dirty byte) goes with this close: its dirty data is written back first, as by a detach.
    const bool deleted = cache_file_deleted_ || devices_->ssd.file().unlinked();
    if (deleted && !cache_file_deleted_) {  // not seen by the watch yet: say so once
      const std::string dirty = std::to_string(cache_->counters().lines_dirty);
      LogError("cache_file_deleted", {{"cache", config_.cache_path},
                                      {"dirty_lines", dirty},
                                      {"action", "writing dirty data back before closing"}});
    }
    if (!detaching_ && !deleted) return cache_->close(std::move(done));
    // The front-ends have stopped: no write is in flight, so this write-back leaves the core
    // complete. Its failure fails the detach, but the cache still closes (dirty data kept).
    clean_counted(nullptr, [this, deleted, done = std::move(done)](Status s) mutable {
      if (s.ok() && cache_->counters().lines_dirty != 0) {
        s = Status::IoError(std::to_string(cache_->counters().lines_dirty) +
                            " lines are still dirty after the final write-back");
      }
      detach_final_clean_ = s;
      // The core may now be used alone: the next start must not serve a copy it changed.
      cache_->close(
          [deleted, s, done = std::move(done)](Status closed) {
            if (!deleted || (closed.ok() && s.ok())) return done(std::move(closed));
            // Nothing keeps the dirty data any more: say what was lost.
            done(Status::IoError("the cache file was deleted and writing its dirty data back "
                                 "failed: " + (s.ok() ? closed : s).message()));
          },
          /*forget_clean=*/true);
    });
  });
}

ControlStatus CacheService::status() const {
  ControlStatus s;
  s.state = stopping_ ? "stopping" : "running";
  s.pid = getpid();
  s.uptime_seconds = uint64_t((SteadyClock::instance().now() - started_).count() / 1'000'000'000);
  // Absolute: the CLI compares the cache with its own --cache (two caches may share a file name).
  s.cache_path = AbsolutePath(config_.cache_path);
  s.core_path = AbsolutePath(config_.core_path);
  s.export_path = export_path_;
  s.export_io = export_io_;
  s.cache_size = devices_->ssd.top().size();
  s.core_size = devices_->core.top().size();
  s.superblock = cache_->info();
  s.policies = cache_->policies();
  s.health = cache_->health();
  s.cache_io = {devices_->ssd.file().backend_name(), devices_->ssd.file().io_counters()};
  s.core_io = {devices_->core.file().backend_name(), devices_->core.file().io_counters()};
  s.metadata = cache_->metadata_counters();
  return s;
}

void CacheService::set_mode(CacheMode mode, bool drain, DoneCallback done) {
  if (detaching_) return done(Status::Busy("a detach is running (the mode stays as it is)"));
  cache_->set_mode(mode, drain, std::move(done));
}

void CacheService::set_policies(const PolicyOptions& next, DoneCallback done) {
  if (stopping_) {
    return done(Status::Busy("tiercached is stopping (the policies stay as they are)"));
  }
  if (detaching_) {
    return done(Status::Busy("a detach is running (the policies stay as they are)"));
  }
  cache_->set_policies(next, std::move(done));
}

void CacheService::set_cleaning(const std::string& policy, const CleaningOptions& options,
                                DoneCallback done) {
  if (stopping_) return done(Status::Busy("tiercached is stopping (the cleaning stays as it is)"));
  cache_->set_cleaning(policy, options, std::move(done));
}

void CacheService::clean_all(ProgressCallback progress, DoneCallback done) {
  cache_->clean_all(std::move(progress), std::move(done));
}

void CacheService::detach(ProgressCallback progress, DetachCallback done) {
  if (stopping_) return done(Status::Busy("tiercached is already stopping"));
  if (detaching_.exchange(true)) return done(Status::Busy("a detach is already running"));
  detach_previous_mode_ = cache_->mode();
  detach_bytes_ = 0;
  if (detach_previous_mode_ != CacheMode::kWriteBack) {
    return detach_clean(0, std::move(progress), std::move(done));
  }
  // Write-through from here on: every write that starts now reaches the core before its ack.
  cache_->set_mode(CacheMode::kWriteThrough, /*drain=*/false,
                   [this, progress = std::move(progress), done = std::move(done)](Status s) {
                     if (!s.ok()) return abort_detach(s, done);
                     detach_clean(0, progress, done);
                   });
}

void CacheService::clean_counted(ProgressCallback progress, DoneCallback done) {
  detach_bytes_ += cache_->counters().dirty_sectors * kSectorSize;
  cache_->clean_all(std::move(progress), std::move(done));
}

void CacheService::detach_clean(int round, ProgressCallback progress, DetachCallback done) {
  constexpr int kDetachRounds = 3;
  clean_counted(progress, [this, round, progress, done](Status s) {
    if (!s.ok()) return abort_detach(s, done);
    uint64_t dirty = cache_->counters().lines_dirty;
    if (dirty != 0 && round + 1 < kDetachRounds) return detach_clean(round + 1, progress, done);
    if (dirty != 0) {
      return abort_detach(Status::Busy(std::to_string(dirty) + " lines are still dirty after " +
                                       std::to_string(kDetachRounds) + " write-backs"),
                          done);
    }
    stop([this, done](Status closed) {
      if (closed.ok()) closed = detach_final_clean_;
      if (!closed.ok()) {
        return done(Status::IoError("tiercached stopped, but not all dirty data reached the "
                                    "core (it stays in the cache): " + closed.message()));
      }
      done(detach_bytes_.load());
    });
  });
}

void CacheService::abort_detach(Status why, DetachCallback done) {
  auto report = [this, why, done](Status restored) {
    detaching_ = false;
    std::string msg = "detach failed, tiercached keeps running in " +
                      std::string(ModeName(cache_->mode())) +
                      ": writing dirty data back failed: " + why.message();
    if (!restored.ok()) msg += "; restoring the mode failed: " + restored.message();
    done(why.code() == Status::Code::kBusy ? Status::Busy(msg) : Status::IoError(msg));
  };
  if (stopping_ || cache_->mode() == detach_previous_mode_) return report(Status::Ok());
  cache_->set_mode(detach_previous_mode_, /*drain=*/false, report);
}

void CacheService::stop(DoneCallback done) {
  if (stopping_.exchange(true) || !shutdown_) {
    return done(Status::Busy("tiercached is already stopping"));
  }
  shutdown_(std::move(done));
}

}  // namespace tiercache
