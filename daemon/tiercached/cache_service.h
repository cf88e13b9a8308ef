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

class PeriodicTimer;

class CacheService final : public ControlTarget {
 public:
  // Blocks until the cache is open (or failed). `main_loop` runs the cleaner and control calls.
  static Result<std::unique_ptr<CacheService>> Open(const DaemonConfig& config,
                                                    LoopThread& main_loop);
  ~CacheService() override;

  Cache& cache() { return *cache_; }
  // What stop() (the control verb) runs: the daemon's whole shutdown sequence.
  void set_shutdown(std::function<void(DoneCallback)> shutdown) { shutdown_ = std::move(shutdown); }
  // The NBD socket and how its connections move bytes ("io_uring" or "epoll"), for status.
  void set_export(std::string path, std::string io) {
    export_path_ = std::move(path);
    export_io_ = std::move(io);
  }
  // Persists metadata and marks the cache clean; during a detach, first writes back what is still
  // dirty. REQUIRES: no more client I/O.
  void close(DoneCallback done);

  ControlStatus status() const override;
  CacheCounters counters() const override { return cache_->counters(); }
  CacheLatency latency() const override { return cache_->latency(); }
  CacheMode mode() const override { return cache_->mode(); }
  PolicyReport policy_report() const override { return cache_->policy_report(); }
  void set_mode(CacheMode mode, bool drain, DoneCallback done) override;
  void clean_all(ProgressCallback progress, DoneCallback done) override;
  void stop(DoneCallback done) override;
  void detach(ProgressCallback progress, DetachCallback done) override;
  void reset_health(DoneCallback done) override { cache_->reset_health(std::move(done)); }
  PolicyOptions policies() const override { return cache_->policies(); }
  // Refused (Busy) while stopping or detaching.
  void set_policies(const PolicyOptions& next, DoneCallback done) override;
  void set_cleaning(const std::string& policy, const CleaningOptions& options,
                    DoneCallback done) override;

 private:
  struct Devices;
  CacheService(const DaemonConfig& config, LoopThread& loop, std::unique_ptr<Devices> devices);

  // Detach, while the daemon serves: clean_all until nothing is dirty (at most kDetachRounds:
  // writes that were in flight when wb ended may dirty lines once more), then stop.
  void detach_clean(int round, ProgressCallback progress, DetachCallback done);
  // Writing back failed while serving: restore the mode and report why; the daemon keeps running.
  void abort_detach(Status why, DetachCallback done);
  // Adds the dirty bytes now present to the detach's count and cleans them.
  void clean_counted(ProgressCallback progress, DoneCallback done);
  // Every kDeletedCacheCheck on the main loop: the first time the cache file is found deleted
  // (its data goes with the close), logs cache_file_deleted and drains the dirty data to the
  // core, write-back becoming write-through. Returns whether it acted.
  bool check_cache_file();
  static constexpr Nanos kDeletedCacheCheck = std::chrono::seconds(5);

  const DaemonConfig config_;
  LoopThread& loop_;
  std::unique_ptr<Devices> devices_;
  std::unique_ptr<Cache> cache_;
  std::function<void(DoneCallback)> shutdown_;
  std::string export_path_;
  std::string export_io_;
  Nanos started_;
  std::atomic<bool> stopping_{false};
  // Set from detach() until it fails or the daemon exits: mode switches are refused meanwhile.
  std::atomic<bool> detaching_{false};
  CacheMode detach_previous_mode_ = CacheMode::kWriteThrough;
  std::atomic<uint64_t> detach_bytes_{0};  // dirty bytes found (and written back) by the detach
  Status detach_final_clean_;              // the write-back close() ran, during a detach
  std::unique_ptr<PeriodicTimer> deleted_watch_;  // on the main loop; runs check_cache_file()
  bool cache_file_deleted_ = false;               // main loop only
};

// The superblock of the cache at `cache_path` (core path, policies, ...), as recorded.
Result<Superblock> RecordedSuperblock(const std::string& cache_path);

}  // namespace tiercache
