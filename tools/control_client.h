// ControlClient: the CLI's side of the control protocol: one blocking Unix-socket connection to
// tiercached, one request at a time (docs/cli.md, "Control protocol"). Owns its socket.
// Not thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "cachelib/common/status.h"
#include "daemon/control/control_json.h"

namespace tiercache {

class ControlClient {
 public:
  using ProgressCallback = std::function<void(const ControlJson& progress_line)>;

  // Connects to the control socket at `path`; the Status is ConnectUnix's.
  static Result<std::unique_ptr<ControlClient>> Connect(const std::string& path);
  ~ControlClient();
  ControlClient(const ControlClient&) = delete;
  ControlClient& operator=(const ControlClient&) = delete;

  // Sends `request` and returns the final reply object ({"ok":...}); every {"progress":...} line
  // before it goes to `on_progress`. IoError when the daemon closes the connection first or sends
  // a line that is not a JSON object. A reply with "ok":false is still a successful call.
  Result<ControlJson> call(const ControlJson& request, const ProgressCallback& on_progress = {});

  const std::string& path() const { return path_; }
  // Replies must then come within `timeout` (a call fails otherwise); default: no limit.
  void set_reply_timeout(std::chrono::milliseconds timeout);

 private:
  ControlClient(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  Status send_line(const std::string& line);
  Result<std::string> read_line();

  static constexpr size_t kMaxReplyBytes = 16 << 20;

  const int fd_;
  const std::string path_;
  std::string buffer_;
};

}  // namespace tiercache
