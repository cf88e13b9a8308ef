#include "daemon/tiercached/daemon_option.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "cachelib/common/logger.h"
#include "cachelib/common/size_parser.h"
#include "cachelib/metadata/store_options.h"
#include "daemon/common/host_port.h"
#include "daemon/metrics/metrics_http.h"
#include "policy/cleaning/cleaning_factory.h"
#include "policy/replacement/replacement_factory.h"

namespace tiercache {
namespace {

using C = DaemonConfig;

// A policy option over the defaults alone, so a typo is reported before the daemon starts (and
// the message names that option, not the recorded policies it would combine with).
Status CheckPolicy(const PolicyOverrides& only) { return only.apply(PolicyOptions{}).validate(); }
Status CheckAdmission(const DaemonConfig& c) {
  PolicyOverrides o;
  o.admission = PolicyOverridesFor(c, SequentialOptions{}).admission;
  return CheckPolicy(o);
}
Status CheckReplacement(const DaemonConfig& c) {
  PolicyOverrides o;
  o.replacement = PolicyOverridesFor(c, SequentialOptions{}).replacement;
  return CheckPolicy(o);
}
Status CheckSeqCutoff(const DaemonConfig& c) {
  PolicyOverrides o;
  o.sequential = PolicyOverridesFor(c, SequentialOptions{}).sequential;
  return CheckPolicy(o);
}

Status CheckFillBacklog(const DaemonConfig& c) {
  if (*c.fill_backlog_bytes >= 4096) return Status::Ok();
  return Status::InvalidArgument("the fill backlog must be at least 4K");
}

Status CheckJournalSteps(const DaemonConfig& c) {
  StoreOptions o;
  return ParseJournalSteps(c.journal_steps, o);
}

Status CheckCleaning(const DaemonConfig& c) {
  return MakeCleaningPolicy(c.cleaning, CleaningOptions{}).status();
}

Status CheckLogLevel(const DaemonConfig& c) {
  if (ParseLogLevel(c.log_level_name)) return Status::Ok();
  return Status::InvalidArgument("'" + c.log_level_name + "' is not debug, info, warn or error");
}
Status CheckIoBackend(const DaemonConfig& c) {
  if (ParseIoBackend(c.io_backend_name).ok()) return Status::Ok();
  return Status::InvalidArgument("'" + c.io_backend_name + "' is not auto, uring or aio");
}
Status CheckSocketIo(const DaemonConfig& c) {
  if (c.socket_io == "ring" || c.socket_io == "epoll") return Status::Ok();
  return Status::InvalidArgument("'" + c.socket_io + "' is not ring or epoll");
}

Status CheckListen(const DaemonConfig& c) {
  if (c.tcp_listen.empty()) return Status::Ok();
  std::string host, port;
  return SplitHostPort(c.tcp_listen, host, port);
}

Status CheckMetrics(const DaemonConfig& c) {
  if (c.metrics_listen.empty()) return Status::Ok();
  return MetricsListenAddress(c.metrics_listen).status();
}

std::string ReplacementNames() {
  std::string names;
  for (std::string_view name : ReplacementPolicyNames()) {
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  return names;
}

// One entry per option: name, short flag, field, help, [range], [check].
std::vector<DaemonOption> MakeOptions() {
  using R = DaemonOption::Range;
  return {
      {"cache", "", &C::cache_path, "cache device (SSD) made by `tiercache create` (required)"},
      {"core", "", &C::core_path, "core device (HDD); default: as recorded at create"},
      {"socket", "", &C::socket_path, "NBD Unix socket (default /run/tiercache/NAME.sock)"},
      {"listen", "", &C::tcp_listen, "also serve NBD over TCP on HOST:PORT", std::nullopt,
       CheckListen},
      {"control", "", &C::control_path, "control socket (default /run/tiercache/NAME.ctl)"},
      {"pidfile", "", &C::pidfile, "write the daemon's pid to FILE"},
      {"export-name", "", &C::export_name, "NBD export name (\"\" is always accepted)"},
      {"foreground", "-f", &C::foreground, "stay in the foreground, log to stderr"},
      {"buffered", "", &C::buffered, "use the page cache instead of O_DIRECT"},
      {"io-backend", "", &C::io_backend_name,
       "kernel I/O interface of both devices: auto (io_uring, else libaio), uring, aio "
       "(default auto)",
       std::nullopt, CheckIoBackend},
      {"socket-io", "", &C::socket_io,
       "NBD sockets: ring (operations on each loop's io_uring, with the devices'; epoll where "
       "io_uring is refused or with --io-backend aio) or epoll (default ring)",
       std::nullopt, CheckSocketIo},
      {"threads", "", &C::threads, "NBD event-loop threads (default 0: one per core)",
       R{0, 256}},
      {"poll-us", "", &C::poll_us,
       "NBD loops busy-poll this long after each event before sleeping (default " +
           std::to_string(kDefaultPollUs) + ", 0: never)",
       R{0, 1e6}},
      {"max-connections", "", &C::max_connections,
       "NBD clients connected at once; one more is closed at accept (default 64)", R{1, 1e6}},
      {"handshake-timeout", "", &C::handshake_timeout_s,
       "drop an NBD client that has not finished negotiating after SECONDS (default 10)",
       R{0.001, 3600}},
      {"ssd-errors", "", &C::ssd_error_threshold,
       "SSD I/O errors within --ssd-error-window that take the cache out of the data path, "
       "0: never (default 5)",
       R{0, 1e6}},
      {"ssd-error-window", "", &C::ssd_error_window_s,
       "the window of --ssd-errors, in SECONDS (default 60)", R{0.001, 86400}},
      {"trust-interval", "", &C::trust_interval_s,
       "make cached data crash-safe (warm after a crash) within SECONDS of a fill or write; 0: "
       "only at a clean close (default 5)",
       R{0, 3600}},
      {"core-model", "", &C::core_model, "emulate HDD timing: hdd7200, hdd5400, hdd10k"},
      {"cache-model", "", &C::cache_model, "emulate SSD timing: sata-ssd, nvme"},
      {"models", "", &C::models_file, "device model profiles (JSON)"},
      {"record", "", &C::record_path, "record a block trace of client requests to FILE"},
      {"ublk", "", &C::ublk, "also expose the volume as /dev/ublkbN"},
      {"ublk-id", "", &C::ublk_id, "ublk device number (default: next free)"},
      {"queues", "", &C::ublk_queues, "ublk queues, one thread each (default 1)", R{1, 64}},
      {"depth", "", &C::ublk_depth, "ublk requests in flight per queue (default 64)", R{1, 4096}},
      {"ublk-recover", "", &C::ublk_recover,
       "reattach to /dev/ublkbN left by a killed tiercached (user recovery)"},
      {"commit-acks", "", &C::commit_acks,
       "acknowledge a write once the cache records it needs are on the SSD, so it survives a "
       "kill -9 even unflushed (always on with --ublk)"},
      {"admission", "", &C::admission,
       "admission policy to run instead of the one recorded at create", std::nullopt,
       CheckAdmission},
      {"replacement", "", &C::replacement,
       "replacement policy to run instead of the one recorded at create (" + ReplacementNames() +
           ")",
       std::nullopt, CheckReplacement},
      {"seq-cutoff", "", &C::seq_cutoff_bytes,
       "sequential bypass cutoff to run with instead of the recorded one, e.g. 4M (0: off)",
       std::nullopt, CheckSeqCutoff},
      {"stream-readahead", "", &C::stream_readahead_bytes,
       "have the HDD read ahead of a read stream this far before it leaves the cached blocks, "
       "e.g. 4M (0: off; default 4M)"},
      {"fill-backlog", "", &C::fill_backlog_bytes,
       "serve read misses without caching them while this much of earlier misses' data waits "
       "for the SSD, e.g. 64M (at least 4K; default 64M)",
       std::nullopt, CheckFillBacklog},
      {"journal-steps", "", &C::journal_steps,
       "metadata persists write one journal step above ONE/N of the record journal, up to four "
       "above FOUR/N: later steps write fewer metadata bytes, earlier ones leave more room "
       "(default 13/16,7/8)",
       std::nullopt, CheckJournalSteps},
      {"cleaning", "", &C::cleaning,
       "write-back cleaning policy: target (keeps dirty data near --dirty-target, cleans within "
       "--busy-share while clients are active, all of it once idle) or nop (only on `tiercache "
       "flush`, a mode change or stop; default target)",
       std::nullopt, CheckCleaning},
      {"dirty-target", "", &C::dirty_target,
       "above this share of the cache dirty, clean even while clients are active, within "
       "--busy-share (default 0.2)",
       R{0, 1}},
      {"dirty-high", "", &C::dirty_high,
       "above this share of the cache dirty, clean back to back (default 0.5)", R{0.001, 1}},
      {"max-dirty-age", "", &C::max_dirty_age_s,
       "written data stays dirty at most about SECONDS: what a lost SSD can cost (default 30)",
       R{1, 86400}},
      {"busy-share", "", &C::busy_share,
       "share of the time cleaning may take while clients are active (default 0.1)",
       R{0.001, 1}},
      {"idle-after", "", &C::idle_after_s,
       "SECONDS without a client request after which the cache is idle and cleans all its "
       "dirty data (default 1)",
       R{0.01, 86400}},
      {"metrics", "", &C::metrics_listen,
       "serve Prometheus metrics at http://[HOST:]PORT/metrics (HOST default 127.0.0.1)",
       std::nullopt, CheckMetrics},
      {"log-level", "", &C::log_level_name,
       "log events at this level and above: debug, info, warn, error (default info)",
       std::nullopt, CheckLogLevel},
  };
}

std::string Quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

}  // namespace

std::string FormatOptionNumber(double v) {
  char buf[32];
  const bool whole = v == std::floor(v) && std::fabs(v) < 1e15;
  std::snprintf(buf, sizeof buf, whole ? "%.0f" : "%g", v);
  return buf;
}

namespace {

// The whole of `text` as a T (decimal digits, a leading '-' for signed types), or an error.
template <typename T>
Result<T> ParseWhole(std::string_view text, const char* what) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    return Status::InvalidArgument(Quoted(text) + " is too large");
  }
  if (ec != std::errc() || ptr != end || text.empty() || text[0] == '+') {
    return Status::InvalidArgument(Quoted(text) + " is not " + what);
  }
  return value;
}

Status InRange(const DaemonOption& option, double value) {
  if (!option.range || (value >= option.range->min && value <= option.range->max)) {
    return Status::Ok();
  }
  return Status::InvalidArgument(FormatOptionNumber(value) + " is not in " +
                                 FormatOptionNumber(option.range->min) + ".." +
                                 FormatOptionNumber(option.range->max));
}

// Parses and range-checks `text` into `*out`.
template <typename T>
Status StoreNumber(const DaemonOption& option, std::string_view text, const char* what, T* out) {
  Result<T> value = ParseWhole<T>(text, what);
  if (!value.ok()) return value.status();
  TC_RETURN_IF_ERROR(InRange(option, double(*value)));
  *out = *value;
  return Status::Ok();
}

Status StoreValue(const DaemonOption& option, std::string_view text, DaemonConfig* c) {
  const DaemonOption::Field& f = option.field;
  switch (option.kind()) {
    case OptionKind::kString:
      c->*std::get<std::string C::*>(f) = std::string(text);
      return Status::Ok();
    case OptionKind::kFlag:
      if (text != "true" && text != "false") {
        return Status::InvalidArgument(Quoted(text) + " is not true or false");
      }
      c->*std::get<bool C::*>(f) = text == "true";
      return Status::Ok();
    case OptionKind::kUnsigned:
      return StoreNumber(option, text, "a whole number >= 0", &(c->*std::get<unsigned C::*>(f)));
    case OptionKind::kInt:
      return StoreNumber(option, text, "a whole number", &(c->*std::get<int C::*>(f)));
    case OptionKind::kDouble:
      return StoreNumber(option, text, "a number", &(c->*std::get<double C::*>(f)));
    case OptionKind::kSize: {
      Result<uint64_t> bytes = ParseSize(text);
      if (!bytes.ok()) return Status::InvalidArgument(bytes.status().message());
      c->*std::get<std::optional<uint64_t> C::*>(f) = *bytes;
      return Status::Ok();
    }
  }
  return Status::InvalidArgument("unknown option kind");
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

const std::vector<DaemonOption>& DaemonOptions() {
  static const std::vector<DaemonOption> options = MakeOptions();
  return options;
}

const DaemonOption* FindDaemonOption(std::string_view name) {
  for (const DaemonOption& option : DaemonOptions()) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

std::string SuggestDaemonOption(std::string_view name) {
  std::string best;
  size_t best_distance = 3;  // more than 2 edits is not a typo
  for (const DaemonOption& option : DaemonOptions()) {
    const size_t d = EditDistance(name, option.name);
    if (d < best_distance && d < option.name.size()) {
      best = option.name;
      best_distance = d;
    }
  }
  return best;
}

Status ApplyDaemonOption(const DaemonOption& option, std::string_view text, DaemonConfig* config) {
  TC_RETURN_IF_ERROR(StoreValue(option, text, config));
  return option.check != nullptr ? option.check(*config) : Status::Ok();
}

}  // namespace tiercache
