#include "tools/control_locator.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "daemon/control/control_paths.h"
#include "tools/process_exit.h"

namespace tiercache {

Result<std::string> ResolveControlPath(const CliOptions& options) {
  if (!options.control.empty()) return options.control;
  if (!options.cache.empty()) return DefaultControlPath(options.cache);
  std::vector<std::string> sockets = ListControlSockets();
  if (sockets.size() == 1) return sockets[0];
  if (sockets.empty()) {
    return Status::NotFound("no control socket in " + RunDirectory() +
                            ": tiercached is not running (or pass --control PATH)");
  }
  std::string names;
  for (const auto& s : sockets) names += (names.empty() ? "" : ", ") + s;
  return Status::InvalidArgument("several caches are running (" + names +
                                 "): choose one with --control PATH or --cache SSD");
}

std::string ServedCache(ControlClient& client) {
  ControlJson request = ControlJson::object();
  request["cmd"] = "status";
  Result<ControlJson> reply = client.call(request);
  if (!reply.ok() || !reply->value("ok", false)) return "";
  return JsonString(reply->value("status", ControlJson::object()), "cache", "");
}

Status CheckServedCache(const std::string& cache, const std::string& served,
                        const std::string& control) {
  struct stat a {}, b {};
  const bool same = stat(cache.c_str(), &a) == 0 && stat(served.c_str(), &b) == 0
                        ? a.st_dev == b.st_dev && a.st_ino == b.st_ino
                        : AbsolutePath(cache) == AbsolutePath(served);
  if (same) return Status::Ok();
  return Status::NotFound("no tiercached serves " + cache + ": the one at " + control +
                          " serves " + served + " (caches whose files share a name share the "
                          "default sockets: start one of them with --control PATH and --socket "
                          "PATH, and reach it with --control PATH)");
}

std::vector<int64_t> FindProcesses(const std::string& name) {
  std::vector<int64_t> pids;
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc", ec);
  if (ec) return pids;
  for (const auto& entry : it) {
    std::string pid = entry.path().filename().string();
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    std::ifstream comm(entry.path() / "comm");
    std::string line;
    if (!std::getline(comm, line) || line != name) continue;
    // A zombie has exited: it serves nothing, though its parent has not reaped it yet.
    if (!ProcessGone(std::stoll(pid))) pids.push_back(std::stoll(pid));
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::string DescribeConnectFailure(const std::string& path, const Status& connect_error) {
  std::string why;
  struct stat st;
  if (lstat(path.c_str(), &st) < 0) {
    why = "no such socket";
  } else if (!S_ISSOCK(st.st_mode)) {
    why = "not a socket";
  } else {
    why = connect_error.message();
    size_t colon = why.rfind(": ");
    if (colon != std::string::npos) why = why.substr(colon + 2);  // strerror part
  }
  std::vector<int64_t> pids = FindProcesses("tiercached");
  std::string daemons;
  if (pids.empty()) {
    daemons = "no tiercached process is running";
  } else {
    daemons = "tiercached is running (pid";
    for (int64_t pid : pids) daemons += " " + std::to_string(pid);
    daemons += ") but not at this path; see --control and " + RunDirectory();
  }
  return "cannot connect to tiercached at " + path + ": " + why + "; " + daemons;
}

}  // namespace tiercache
