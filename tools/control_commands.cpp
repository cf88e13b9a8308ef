#include "tools/control_commands.h"

#include <memory>

#include "cachelib/common/size_parser.h"
#include "tools/control_client.h"
#include "tools/control_locator.h"
#include "tools/control_session.h"
#include "tools/exit_codes.h"
#include "daemon/control/prometheus_format.h"
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
  } else {
    io.out << "mode: " << JsonString(reply, "previous_mode") << " -> "
           << JsonString(reply, "mode") << (options.drain ? " (drained)" : "") << "\n";
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

int RunStop(const CliOptions& options, CommandIo& io) {
  Session session(options, io, "stop");
  ControlJson reply;
  if (!session.connected() || !session.call(Request("stop"), &reply)) return session.exit_code();
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
  if (!session.connected()) return session.exit_code();
  // The daemon does it all (switch to wt, write back, stop), so no write can slip in between.
  ProgressPrinter printer(io);
  ControlJson reply;
  bool ok = session.call(Request("detach"), &reply, [&](const ControlJson& l) { printer(l); });
  printer.finish();
  if (!ok) return session.exit_code();
  if (io.json) return kExitOk;
  uint64_t bytes = JsonU64(reply, "written_back_bytes");
  io.out << "detached: " << FormatSize(bytes)
         << " of dirty data written back; the core holds all data and tiercached stopped\n";
  return kExitOk;
}

}  // namespace tiercache
