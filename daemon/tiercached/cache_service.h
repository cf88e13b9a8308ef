// CacheService: the daemon's cache: opens the SSD and HDD files (FileDevice), optionally wraps them
// in timing models, opens the Cache on the daemon's main loop, and implements ControlTarget for the
// control socket. Owns the devices and the Cache. Thread-safety: as ControlTarget requires (control
// calls arrive on the main loop); cache() may be used from any loop.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/engine/cache.h"
#include "cachelib/metadata/superblock.h"
#include "daemon/control/control_target.h"
#include "daemon/tiercached/daemon_config.h"

namespace tiercache {

class CacheService final : public ControlTarget {
 public:
  // Blocks until the cache is open (or failed). `main_loop` runs the cleaner and control calls.
  static Result<std::unique_ptr<CacheService>> Open(const DaemonConfig& config,
                                                    LoopThread& main_loop);
  ~CacheService() override;

  Cache& cache() { return *cache_; }
  // What stop() (the control verb) runs: the daemon's whole shutdown sequence.
  void set_shutdown(std::function<void(DoneCallback)> shutdown) { shutdown_ = std::move(shutdown); }
  void set_export_path(std::string path) { export_path_ = std::move(path); }
  // Persists metadata and marks the cache clean. REQUIRES: no more client I/O.
  void close(DoneCallback done);

  ControlStatus status() const override;
  CacheCounters counters() const override { return cache_->counters(); }
  CacheMode mode() const override { return cache_->mode(); }
  PolicyReport policy_report() const override { return cache_->policy_report(); }
  void set_mode(CacheMode mode, bool drain, DoneCallback done) override;
  void clean_all(ProgressCallback progress, DoneCallback done) override;
  void stop(DoneCallback done) override;

 private:
  struct Devices;
  CacheService(const DaemonConfig& config, LoopThread& loop, std::unique_ptr<Devices> devices);

  const DaemonConfig config_;
  LoopThread& loop_;
  std::unique_ptr<Devices> devices_;
  std::unique_ptr<Cache> cache_;
  std::function<void(DoneCallback)> shutdown_;
  std::string export_path_;
  PolicyOptions policies_;  // in use: the recorded ones with the daemon's overrides
  Nanos started_;
  std::atomic<bool> stopping_{false};
};

// The superblock of the cache at `cache_path` (core path, policies, ...), as recorded.
Result<Superblock> RecordedSuperblock(const std::string& cache_path);

}  // namespace tiercache
