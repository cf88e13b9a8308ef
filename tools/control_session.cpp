#include "tools/control_session.h"

#include "tools/control_locator.h"
#include "tools/exit_codes.h"

namespace tiercache {

Session::Session(const CliOptions& options, CommandIo& io, const char* verb)
    : io_(io), verb_(verb) {
  Result<std::string> path = ResolveControlPath(options);
  if (!path.ok()) {
    bool usage = path.status().code() == Status::Code::kInvalidArgument;
    exit_ = ReportFailure(io_, verb_, usage ? "InvalidArgument" : "NoDaemon",
                          path.status().message(), usage ? kExitUsage : kExitNoDaemon);
    return;
  }
  Result<std::unique_ptr<ControlClient>> client = ControlClient::Connect(*path);
  if (!client.ok()) {
    exit_ = ReportFailure(io_, verb_, "NoDaemon", DescribeConnectFailure(*path, client.status()),
                          kExitNoDaemon);
    return;
  }
  client_ = std::move(client).value();
  if (options.control.empty() && !options.cache.empty()) check_serves(options.cache, *path);
}

void Session::check_serves(const std::string& cache, const std::string& control) {
  const std::string served = ServedCache(*client_);
  if (served.empty()) return;  // no answer: the verb itself reports the failure
  Status serves = CheckServedCache(cache, served, control);
  if (serves.ok()) return;
  exit_ = ReportFailure(io_, verb_, "NoDaemon", serves.message(), kExitNoDaemon);
  client_.reset();
}

bool Session::call(const ControlJson& request, ControlJson* reply,
                   const ControlClient::ProgressCallback& on_progress, bool print_reply) {
  auto progress = [&](const ControlJson& line) {
    if (io_.json) PrintJsonLine(io_, line);
    if (on_progress) on_progress(line);
  };
  Result<ControlJson> result = client_->call(request, progress);
  if (!result.ok()) {
    exit_ = ReportFailure(io_, verb_, std::string(Status::CodeName(result.status().code())),
                          result.status().message(), kExitFailed);
    return false;
  }
  *reply = std::move(result).value();
  if (reply->value("ok", false)) {
    if (io_.json && print_reply) PrintJsonLine(io_, *reply);
    return true;
  }
  std::string error = JsonString(*reply, "error", "failed");
  std::string code = JsonString(*reply, "code", "IoError");
  if (io_.json) PrintJsonLine(io_, *reply);
  io_.err << "tiercache " << verb_ << ": " << error << " (" << code << ")\n";
  exit_ = kExitFailed;
  return false;
}

ControlJson Request(const char* cmd) {
  ControlJson request = ControlJson::object();
  request["cmd"] = cmd;
  return request;
}

}  // namespace tiercache
