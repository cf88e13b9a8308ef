#include "daemon/tiercached/daemon_config.h"

#include <CLI/CLI.hpp>

#include "daemon/control/control_paths.h"
#include "policy/replacement/replacement_factory.h"

namespace tiercache {
namespace {

// The policy flags alone, with defaults standing in for the recorded choices: a typo is a usage
// error before the daemon starts, not a failed open after it detached.
Status CheckPolicyFlags(const DaemonConfig& c) {
  // Each flag alone over the defaults, so the message names it.
  const PolicyOverrides all = PolicyOverridesFor(c, SequentialOptions{});
  PolicyOverrides admission, replacement, sequential;
  admission.admission = all.admission;
  replacement.replacement = all.replacement;
  sequential.sequential = all.sequential;
  const std::pair<const char*, const PolicyOverrides*> flags[] = {
      {"--admission", &admission}, {"--replacement", &replacement}, {"--seq-cutoff", &sequential}};
  for (const auto& [flag, overrides] : flags) {
    if (Status s = overrides->apply(PolicyOptions{}).validate(); !s.ok()) {
      return Status::InvalidArgument(std::string(flag) + ": " + s.message());
    }
  }
  return Status::Ok();
}

// Adds --admission, --replacement and --seq-cutoff.
void AddPolicyOptions(CLI::App& app, DaemonConfig* c) {
  std::string replacements;
  for (std::string_view name : ReplacementPolicyNames()) {
    replacements += (replacements.empty() ? "" : ", ") + std::string(name);
  }
  app.add_option("--admission", c->admission,
                 "admission policy to run instead of the one recorded at create");
  app.add_option("--replacement", c->replacement,
                 "replacement policy to run instead of the one recorded at create (" +
                     replacements + ")");
  app.add_option_function<uint64_t>(
         "--seq-cutoff", [c](const uint64_t& bytes) { c->seq_cutoff_bytes = bytes; },
         "sequential bypass cutoff to run with instead of the recorded one, e.g. 4M (0: off)")
      ->transform(CLI::AsSizeValue(/*kb_is_1000=*/false));
}

}  // namespace

PolicyOverrides PolicyOverridesFor(const DaemonConfig& c, const SequentialOptions& recorded) {
  PolicyOverrides o;
  if (!c.admission.empty()) o.admission = c.admission;
  if (!c.replacement.empty()) o.replacement = c.replacement;
  if (c.seq_cutoff_bytes) {
    SequentialOptions& seq = o.sequential.emplace(recorded);
    seq.enabled = *c.seq_cutoff_bytes > 0;
    seq.read_cutoff_bytes = *c.seq_cutoff_bytes;
    seq.write_cutoff_bytes = *c.seq_cutoff_bytes;
  }
  return o;
}

Result<DaemonConfig> ParseDaemonConfig(int argc, char** argv) {
  DaemonConfig c;
  CLI::App app{"tiercached: serve an SSD-cached HDD as one block device over NBD"};
  app.add_option("--cache", c.cache_path, "cache device (SSD) made by `tiercache create`")
      ->required();
  app.add_option("--core", c.core_path, "core device (HDD); default: as recorded at create");
  app.add_option("--socket", c.socket_path, "NBD Unix socket (default /run/tiercache/NAME.sock)");
  app.add_option("--listen", c.tcp_listen, "also serve NBD over TCP on HOST:PORT");
  app.add_option("--control", c.control_path, "control socket (default /run/tiercache/NAME.ctl)");
  app.add_option("--pidfile", c.pidfile, "write the daemon's pid to FILE");
  app.add_option("--export-name", c.export_name, "NBD export name (\"\" is always accepted)");
  app.add_flag("--foreground,-f", c.foreground, "stay in the foreground, log to stderr");
  app.add_flag("--buffered", c.buffered, "use the page cache instead of O_DIRECT");
  app.add_option_function<std::string>(
         "--io-backend", [&c](const std::string& v) { c.io_backend = ParseIoBackend(v).value(); },
         "kernel I/O interface of both devices: auto (io_uring, else libaio), uring, aio "
         "(default auto)")
      ->check(CLI::IsMember({"auto", "uring", "aio"}));
  app.add_option("--threads", c.threads, "NBD event-loop threads (default: one per core)");
  app.add_option("--poll-us", c.poll_us,
                 "NBD loops busy-poll this long after each event before sleeping (default " +
                     std::to_string(kDefaultPollUs) + ", 0: never)")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--max-connections", c.max_connections,
                 "NBD clients connected at once; one more is closed at accept (default 64)")
      ->check(CLI::Range(1u, 1000000u));
  app.add_option("--handshake-timeout", c.handshake_timeout_s,
                 "drop an NBD client that has not finished negotiating after SECONDS (default 10)")
      ->check(CLI::Range(0.001, 3600.0));
  app.add_option("--ssd-errors", c.ssd_error_threshold,
                 "SSD I/O errors within --ssd-error-window that take the cache out of the data "
                 "path, 0: never (default 5)")
      ->check(CLI::Range(0u, 1000000u));
  app.add_option("--ssd-error-window", c.ssd_error_window_s,
                 "the window of --ssd-errors, in SECONDS (default 60)")
      ->check(CLI::Range(0.001, 86400.0));
  app.add_option("--core-model", c.core_model, "emulate HDD timing: hdd7200, hdd5400, hdd10k");
  app.add_option("--cache-model", c.cache_model, "emulate SSD timing: sata-ssd, nvme");
  app.add_option("--models", c.models_file, "device model profiles (JSON)");
  app.add_option("--record", c.record_path, "record a block trace of client requests to FILE");
  app.add_flag("--ublk", c.ublk, "also expose the volume as /dev/ublkbN");
  app.add_option("--ublk-id", c.ublk_id, "ublk device number (default: next free)");
  app.add_option("--queues", c.ublk_queues, "ublk queues, one thread each (default 1)")
      ->check(CLI::Range(1, 64));
  app.add_option("--depth", c.ublk_depth, "ublk requests in flight per queue (default 64)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--ublk-recover", c.ublk_recover,
                 "reattach to /dev/ublkbN left by a killed tiercached (user recovery)");
  app.add_flag("--commit-acks", c.commit_acks,
               "acknowledge a write once the cache records it needs are on the SSD, so it survives "
               "a kill -9 even unflushed (always on with --ublk)");
  AddPolicyOptions(app, &c);
  app.set_version_flag("--version", "tiercached 0.1.0");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::printf("%s", app.help().c_str());
    return Status::NotFound("");
  } catch (const CLI::CallForVersion& e) {
    std::printf("tiercached 0.1.0\n");
    return Status::NotFound("");
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(e.what());
  }
  TC_RETURN_IF_ERROR(CheckPolicyFlags(c));
  if (c.ublk_recover >= 0) c.ublk = true;
  if (c.ublk) c.commit_acks = true;
  if (c.socket_path.empty()) c.socket_path = DefaultExportPath(c.cache_path);
  if (c.control_path.empty()) c.control_path = DefaultControlPath(c.cache_path);
  return c;
}

}  // namespace tiercache
