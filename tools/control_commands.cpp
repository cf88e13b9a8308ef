#include "tools/control_commands.h"

#include <memory>

#include "cachelib/common/size_parser.h"
#include "tools/control_client.h"
#include "tools/control_locator.h"
#include "tools/control_session.h"
#include "tools/exit_codes.h"
#include "daemon/control/prometheus_format.h"
#include "tools/process_exit.h"
#include "tools/reply_printer.h"

namespace tiercache {
namespace {

// Prints flush progress for humans; ends the redrawn line before anything else is printed.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(CommandIo& io) : io_(io) {}
  ~ProgressPrinter() { finish(); }
  void operator()(const ControlJson& line) {
    if (io_.json) return;
    uint64_t remaining = JsonU64(line.value("progress", ControlJson::object()), "dirty_lines");
    std::string text = "flushing: " + std::to_string(remaining) + " dirty lines left";
    if (io_.progress_tty) {
      io_.out << "\r" << text << "   " << std::flush;
      open_ = true;
    } else {
      io_.out << text << "\n" << std::flush;
    }
  }
  void finish() {
    if (open_) io_.out << "\n";
    open_ = false;
  }

 private:
  CommandIo& io_;
  bool open_ = false;
};

// Runs one flush; *dirty_after is the daemon's dirty line count when it finished.
bool Flush(Session& session, CommandIo& io, uint64_t* dirty_after) {
  ProgressPrinter printer(io);
  ControlJson reply;
  bool ok = session.call(Request("flush"), &reply, [&](const ControlJson& l) { printer(l); });
  printer.finish();
  if (ok) *dirty_after = JsonU64(reply, "dirty_lines");
  return ok;
}

// The PolicyOptions of a "policies" object (PolicyOptionsToJson); missing fields read as 0/"?".
PolicyOptions PolicyOptionsFromJson(const ControlJson& p) {
  PolicyOptions out;
  out.admission = JsonString(p, "admission");
  out.replacement = JsonString(p, "replacement");
  const ControlJson seq = p.value("sequential", ControlJson::object());
  out.sequential.enabled = seq.value("enabled", false);
  out.sequential.read_cutoff_bytes = JsonU64(seq, "read_cutoff_bytes");
  out.sequential.write_cutoff_bytes = JsonU64(seq, "write_cutoff_bytes");
  out.sequential.streams = uint32_t(JsonU64(seq, "streams"));
  return out;
}

// The change request: the flags applied over the policies in force; only what a flag set is sent.
bool PolicyChange(const CliOptions& options, CommandIo& io, Session& session,
                  ControlJson* request, int* exit_code) {
  ControlJson current;
  if (!session.call(Request("policy"), &current, {}, /*print_reply=*/false)) {
    *exit_code = session.exit_code();
    return false;
  }
  const PolicyFlags& flags = options.policy_change;
  Result<PolicyOptions> next =
      flags.apply(PolicyOptionsFromJson(current.value("policies", ControlJson::object())));
  if (!next.ok()) {
    *exit_code = ReportFailure(io, "policy", "InvalidArgument", next.status().message(),
                               kExitUsage);
    return false;
  }
  const ControlJson json = PolicyOptionsToJson(*next);
  if (!flags.admission.empty()) (*request)["admission"] = next->admission;
  if (!flags.replacement.empty()) (*request)["replacement"] = next->replacement;
  if (flags.any_sequential()) (*request)["sequential"] = json["sequential"];
  return true;
}

}  // namespace

int RunStatus(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "status");
  ControlJson reply;
  if (!session.connected() || !session.call(Request("status"), &reply)) {
    return session.exit_code();
  }
  if (!io.json) PrintStatus(reply.value("status", ControlJson::object()), io.out);
  return kExitOk;
}

int RunStats(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "stats");
  ControlJson reply;
  if (!session.connected() || !session.call(Request("stats"), &reply)) {
    return session.exit_code();
  }
  const ControlJson stats = reply.value("stats", ControlJson::object());
  if (options.prometheus) {
    io.out << FormatPrometheus(stats);
  } else if (!io.json) {
    PrintStats(stats, io.out);
  }
  return kExitOk;
}

int RunMode(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "mode");
  ControlJson request = Request("mode");
  if (options.new_mode) {
    request["mode"] = std::string(ModeName(*options.new_mode));
    if (options.drain) request["drain"] = true;
  }
  ControlJson reply;
  if (!session.connected() || !session.call(request, &reply)) return session.exit_code();
  if (io.json) return kExitOk;
  if (!options.new_mode) {
    io.out << "mode: " << JsonString(reply, "mode") << "\n";
  } else if (JsonString(reply, "previous_mode") == JsonString(reply, "mode")) {
    io.out << "mode: " << JsonString(reply, "mode") << " (unchanged"
           << (options.drain ? ", drained" : "") << ")\n";
  } else {
    io.out << "mode: " << JsonString(reply, "previous_mode") << " -> "
           << JsonString(reply, "mode") << (options.drain ? " (drained)" : "") << "\n";
  }
  return kExitOk;
}

int RunPolicy(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "policy");
  if (!session.connected()) return session.exit_code();
  const bool change = options.policy_change.any();
  ControlJson request = Request("policy");
  int exit_code = kExitOk;
  if (change && !PolicyChange(options, io, session, &request, &exit_code)) return exit_code;
  ControlJson reply;
  if (!session.call(request, &reply)) return session.exit_code();
  if (io.json) return kExitOk;
  io.out << "policies:   " << DescribePolicies(reply.value("policies", ControlJson::object()))
         << "\n";
  if (change) {
    io.out << "            (was: "
           << DescribePolicies(reply.value("previous_policies", ControlJson::object())) << ")\n";
  }
  return kExitOk;
}

int RunCleaning(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "cleaning");
  if (!session.connected()) return session.exit_code();
  const bool change = options.cleaning_change.any();
  ControlJson request = Request("cleaning");
  if (change) {
    ControlJson current;
    if (!session.call(request, &current, {}, /*print_reply=*/false)) return session.exit_code();
    Result<ControlJson> next =
        options.cleaning_change.request_over(current.value("cleaning", ControlJson::object()));
    if (!next.ok()) {
      return ReportFailure(io, "cleaning", "InvalidArgument", next.status().message(),
                           kExitUsage);
    }
    request = *next;
  }
  ControlJson reply;
  if (!session.call(request, &reply)) return session.exit_code();
  if (io.json) return kExitOk;
  io.out << "cleaning:   "
         << DescribeCleaningSettings(reply.value("cleaning", ControlJson::object())) << "\n";
  if (change) {
    io.out << "            (was: "
           << DescribeCleaningSettings(reply.value("previous_cleaning", ControlJson::object()))
           << ")\n";
  }
  return kExitOk;
}

int RunFlush(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "flush");
  uint64_t dirty = 0;
  if (!session.connected() || !Flush(session, io, &dirty)) return session.exit_code();
  if (io.json) return kExitOk;
  if (dirty == 0) {
    io.out << "flush complete: no dirty lines left\n";
  } else {
    io.out << "flush complete; " << dirty << " lines were dirtied again by writes meanwhile\n";
  }
  return kExitOk;
}

// The daemon's pid (0 if it does not say), asked before a verb that stops it.
bool AskPid(Session& session, int64_t* pid) {
  ControlJson reply;
  if (!session.call(Request("status"), &reply, {}, /*print_reply=*/false)) return false;
  *pid = int64_t(JsonU64(reply.value("status", ControlJson::object()), "pid"));
  return true;
}

// After the reply to stop or detach: the daemon closed the cache, and lets go of its lock as it
// exits. Returns false (reported) if it is still running after kExitWait.
bool WaitForExit(CommandIo& io, const char* verb, int64_t pid) {
  constexpr std::chrono::seconds kExitWait{60};
  if (WaitForProcessExit(pid, kExitWait)) return true;
  ReportFailure(io, verb, "Busy",
                "tiercached (pid " + std::to_string(pid) + ") closed the cache but is still "
                "running after " + std::to_string(kExitWait.count()) + " s",
                kExitFailed);
  return false;
}

int RunStop(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "stop");
  ControlJson reply;
  int64_t pid = 0;
  if (!session.connected() || !AskPid(session, &pid) || !session.call(Request("stop"), &reply)) {
    return session.exit_code();
  }
  if (!WaitForExit(io, "stop", pid)) return kExitFailed;
  if (!io.json) io.out << "tiercached stopped; the cache was closed cleanly\n";
  return kExitOk;
}

int RunResetHealth(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "reset-health");
  ControlJson reply;
  if (!session.connected() || !session.call(Request("reset-health"), &reply)) {
    return session.exit_code();
  }
  if (!io.json) io.out << "SSD check passed; health: " << JsonString(reply, "health") << "\n";
  return kExitOk;
}

int RunDetach(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "detach");
  int64_t pid = 0;
  if (!session.connected() || !AskPid(session, &pid)) return session.exit_code();
  // The daemon does it all (switch to wt, write back, stop), so no write can slip in between.
  ProgressPrinter printer(io);
  ControlJson reply;
  bool ok = session.call(Request("detach"), &reply, [&](const ControlJson& l) { printer(l); });
  printer.finish();
  if (!ok) return session.exit_code();
  if (!WaitForExit(io, "detach", pid)) return kExitFailed;
  if (io.json) return kExitOk;
  uint64_t bytes = JsonU64(reply, "written_back_bytes");
  io.out << "detached: " << FormatSize(bytes)
         << " of dirty data written back; the core holds all data and tiercached stopped\n";
  return kExitOk;
}

}  // namespace tiercache
