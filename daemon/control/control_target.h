// ControlTarget: what the control socket (ControlServer) drives. tiercached implements it over a
// Cache; tests use FakeControlTarget. The server calls every method on its own loop thread.
// Callbacks (done, progress) may be invoked from any thread and even inline; the server posts them
// back onto its loop. They must not be invoked after the server's loop has been destroyed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "cachelib/common/status.h"
#include "cachelib/device/io_queue.h"
#include "cachelib/engine/cache.h"
#include "cachelib/metadata/metadata_store.h"

namespace tiercache {

// How the daemon reaches one of its devices.
struct DeviceIoStatus {
  std::string backend;       // "io_uring" or "libaio"; empty: not reported (no "io" object)
  IoQueueCounters counters;  // in_flight_sum / rounds: the mean device queue depth
};

// Static facts about the running cache, reported by `tiercache status`.
struct ControlStatus {
  std::string state = "running";  // "running", or "stopping" once stop() was called
  int64_t pid = 0;                // the daemon's process id
  uint64_t uptime_seconds = 0;
  std::string cache_path;         // the SSD as given on the command line
  std::string core_path;          // the HDD as given on the command line
  std::string export_path;        // the NBD Unix socket; empty when not exported
  std::string export_io;          // how its sockets move bytes: "io_uring" or "epoll"
  uint64_t cache_size = 0;        // bytes of the SSD device
  uint64_t core_size = 0;         // bytes of the HDD device = size of the exported device
  SuperblockInfo superblock;      // as loaded at open (uuid, line size, line count, ...)
  // The policies in use: those recorded at create (superblock.policies) with the daemon's
  // overrides (tiercached --admission, --replacement, --seq-cutoff) applied.
  PolicyOptions policies;
  // The SSD's health: "ok", "degraded" or "failed", error counts, dirty bytes at risk.
  CacheHealth health;
  DeviceIoStatus cache_io, core_io;
  // The metadata store's rounds and journal fill; journal_blocks 0: not reported.
  MetadataCounters metadata;
};

class ControlTarget {
 public:
  using DoneCallback = std::function<void(Status)>;
  // Dirty lines still to be written to the core.
  using ProgressCallback = std::function<void(uint64_t remaining_dirty_lines)>;
  // The bytes of dirty data a detach wrote to the core, or why it failed.
  using DetachCallback = std::function<void(Result<uint64_t> written_back_bytes)>;

  virtual ~ControlTarget() = default;

  // Cheap, non-blocking snapshots.
  virtual ControlStatus status() const = 0;
  virtual CacheCounters counters() const = 0;
  // Request latency histograms by path; none for a target without them.
  virtual CacheLatency latency() const { return {}; }
  virtual CacheMode mode() const = 0;
  // Policy names, their counters summed over shards, and the RAM of the line index.
  virtual PolicyReport policy_report() const = 0;

  // Switches the cache mode (Cache::set_mode). done runs exactly once.
  virtual void set_mode(CacheMode mode, bool drain, DoneCallback done) = 0;
  // Writes all dirty data to the core (Cache::clean_all). progress may run any number of times
  // before done; done runs exactly once.
  virtual void clean_all(ProgressCallback progress, DoneCallback done) = 0;
  // Stops the daemon: closes the cache cleanly, then calls done with the outcome. done queues
  // the reply on the server's loop; destroy the ControlServer afterwards from a task posted to
  // that loop (e.g. LoopThread::run_sync), so the reply is written first.
  virtual void stop(DoneCallback done) = 0;
  // Drains, then stops: switches a wb cache to wt (no new dirty data can appear), writes all
  // dirty data to the core (progress as clean_all), then stops as stop() does, writing back what
  // is still dirty once client I/O has ended. If writing back fails while the daemon still runs,
  // the mode is restored and the daemon keeps running. done runs exactly once.
  virtual void detach(ProgressCallback progress, DetachCallback done) = 0;
  // The policies in use (ControlStatus::policies).
  virtual PolicyOptions policies() const { return status().policies; }
  // Puts `next` in force while I/O runs and records it in the superblock (Cache::set_policies).
  // done runs exactly once; on failure the policies in use are unchanged.
  virtual void set_policies(const PolicyOptions& next, DoneCallback done) {
    done(Status::NotSupported("this target cannot change its policies"));
  }
  // Runs cleaning policy `policy` with `options` for the rest of this run (Cache::set_cleaning;
  // not recorded). done runs exactly once; on failure the cleaning in use is unchanged.
  virtual void set_cleaning(const std::string& policy, const CleaningOptions& options,
                            DoneCallback done) {
    done(Status::NotSupported("this target cannot change its cleaning"));
  }
  // Brings the SSD back into the data path after it failed (Cache::reset_health): re-checks it by
  // reading the superblock, then clears the failed state. done runs exactly once.
  virtual void reset_health(DoneCallback done) {
    done(Status::NotSupported("this target has no SSD health to reset"));
  }
};

}  // namespace tiercache
