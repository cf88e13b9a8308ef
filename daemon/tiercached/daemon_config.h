// DaemonConfig: tiercached's options, from the command line (CLI11) over a config file (TOML),
// parsed and validated. Plain value type; the options are defined once, in daemon_option.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "cachelib/common/logger.h"
#include "cachelib/common/status.h"
#include "cachelib/device/io_backend.h"
#include "policy/cleaning/cleaning_options.h"
#include "policy/policy_options.h"

namespace tiercache {

// Busy polling is off by default: it keeps a CPU spinning while I/O flows, which a desktop
// cache should not do unasked. --poll-us 200 trades that CPU for latency (docs/performance.md).
inline constexpr unsigned kDefaultPollUs = 0;

struct DaemonConfig {
  std::string cache_path;    // --cache SSD (required): made by `tiercache create`
  std::string core_path;     // --core HDD; default: the path recorded in the superblock
  std::string socket_path;   // --socket; default /run/tiercache/<cache name>.sock
  std::string tcp_listen;    // --listen HOST:PORT; empty: no TCP
  std::string control_path;  // --control; default /run/tiercache/<cache name>.ctl
  std::string pidfile;       // --pidfile FILE
  std::string export_name;   // --export-name; "" is always accepted
  bool foreground = false;   // --foreground: do not detach
  bool buffered = false;     // --buffered: page-cached I/O instead of O_DIRECT (tmpfs, tests)
  std::string io_backend_name = "auto";     // --io-backend auto|uring|aio (default auto)
  IoBackend io_backend = IoBackend::kAuto;  // io_backend_name, parsed by FinishDaemonConfig
  // --socket-io ring|epoll: NBD sockets as operations on each loop's io_uring, shared with the
  // devices (default ring; epoll where io_uring is refused or with --io-backend aio), or epoll
  // readiness and recv/sendmsg.
  std::string socket_io = "ring";
  unsigned threads = 0;      // --threads N: NBD event loops; 0 = one per core
  unsigned poll_us = kDefaultPollUs;  // --poll-us N: NBD loops busy-poll N us after each event
  unsigned max_connections = 64;      // --max-connections N: NBD clients at once (default 64)
  double handshake_timeout_s = 10;    // --handshake-timeout SECONDS: NBD negotiation (default 10)
  // --ssd-errors N --ssd-error-window SECONDS: N SSD errors within the window take the cache out
  // of the data path (pass-through until `tiercache reset-health`); 0 never (default 5 in 60 s).
  unsigned ssd_error_threshold = 5;
  double ssd_error_window_s = 60;
  // --trust-interval SECONDS: how soon what a client read or wrote is made crash-safe, so the
  // cache comes back warm after a crash (CacheOptions::trust_interval); 0: only a clean close
  // does it (a crash forgets clean lines; a write waits for the SSD only over a line loaded
  // crash-safe at start, once). Default 5.
  double trust_interval_s = 5;
  std::string core_model;    // --core-model NAME: emulate an HDD's timing over the core file
  std::string cache_model;   // --cache-model NAME: emulate an SSD's timing over the cache file
  std::string record_path;   // --record FILE: write a block trace of client requests
  std::string models_file;   // --models FILE: device model profiles (default: built in)
  bool ublk = false;          // --ublk: also expose the volume as /dev/ublkbN (Linux 6.5+)
  int ublk_id = -1;           // --ublk-id N: device number; -1 lets the kernel pick
  unsigned ublk_queues = 1;   // --queues N: ublk hardware queues (one thread each)
  unsigned ublk_depth = 64;   // --depth N: requests in flight per queue
  int ublk_recover = -1;      // --ublk-recover N: reattach to /dev/ublkbN after a crash
  // --commit-acks: acknowledge writes only once the records they depend on are on the SSD, so
  // they survive a kill -9 unflushed (CacheOptions::commit_before_ack). Always on with --ublk.
  bool commit_acks = false;
  // Policies to run instead of those `tiercache create` recorded (the superblock keeps its own).
  std::string admission;      // --admission NAME; empty: as recorded
  std::string replacement;    // --replacement NAME; empty: as recorded
  std::optional<uint64_t> seq_cutoff_bytes;  // --seq-cutoff SIZE, both directions; 0: off
  // --stream-readahead SIZE: how far ahead of a read stream served from the SSD to have the HDD
  // read the first blocks the cache lacks (CacheOptions::stream_readahead_bytes); 0: off.
  // Unset: the engine's default (4 MiB).
  std::optional<uint64_t> stream_readahead_bytes;
  // --fill-backlog SIZE: read-miss data waiting for the SSD beyond which further misses are not
  // cached (CacheOptions::max_fill_backlog_bytes). Unset: the engine's default (64 MiB).
  std::optional<uint64_t> fill_backlog_bytes;
  // --journal-steps ONE/N,FOUR/N: a persist writes one journal step once the record journal is
  // fuller than ONE/N, up to four above FOUR/N (CacheOptions::store). Empty: the store's default.
  std::string journal_steps;
  // Write-back cleaning (CacheOptions::cleaning, cleaning_options; policy/cleaning/): --cleaning
  // target|nop, and target's knobs: --dirty-target SHARE, --dirty-high SHARE, --max-dirty-age
  // SECONDS, --busy-share SHARE, --idle-after SECONDS. Defaults: CleaningOptions'. Not recorded.
  std::string cleaning = "target";
  double dirty_target = CleaningOptions{}.dirty_target;
  double dirty_high = CleaningOptions{}.dirty_high;
  double max_dirty_age_s = std::chrono::duration<double>(CleaningOptions{}.max_dirty_age).count();
  double busy_share = CleaningOptions{}.busy_share;
  double idle_after_s = std::chrono::duration<double>(CleaningOptions{}.idle_after).count();
  // --metrics [HOST:]PORT: serve the Prometheus text at http://HOST:PORT/metrics, HOST 127.0.0.1
  // unless given; stored as HOST:PORT (MetricsListenAddress). Empty: off (default).
  std::string metrics_listen;
  std::string log_level_name = "info";   // --log-level debug|info|warn|error (default info)
  LogLevel log_level = LogLevel::kInfo;  // log_level_name, parsed by FinishDaemonConfig
};

// The policy flags of `config` as overrides of the recorded choices. --seq-cutoff changes only
// the cutoffs (and on/off) of `recorded`, the sequential options the superblock holds.
PolicyOverrides PolicyOverridesFor(const DaemonConfig& config, const SequentialOptions& recorded);

// The cleaning knobs of `config`, the other fields CleaningOptions' defaults; the age margin is
// a sixth of --max-dirty-age (5 s of the default 30). InvalidArgument naming the options (flags or
// config keys) when they do not fit together ("dirty-target 0.6 must be below dirty-high 0.5").
Result<CleaningOptions> CleaningOptionsFor(const DaemonConfig& config);

// Parses argv: `--config FILE` first (LoadConfigFile), then every flag given over it. On
// --help/--version prints and returns NotFound with an empty message (exit 0); on a usage error
// returns InvalidArgument (exit 2): CLI11's message, "--flag: why", or the file's errors, one
// "FILE:LINE: why" per line.
Result<DaemonConfig> ParseDaemonConfig(int argc, char** argv);

// What holds whatever the options came from: --cache is set, --ublk-recover implies --ublk,
// which implies --commit-acks, and the socket paths default to /run/tiercache/NAME.*.
Result<DaemonConfig> FinishDaemonConfig(DaemonConfig config);

}  // namespace tiercache
