// ControlHandler: executes parsed control requests against a ControlTarget and produces the
// response objects (the execution layer under ControlConnection's transport).
// Threading: execute() must be called on `loop`'s thread and emit always runs there too: target
// callbacks arriving on other threads, or inline, are posted back onto the loop. Callbacks that
// arrive after the handler is destroyed are dropped. The handler does not own the target.
#pragma once

#include <functional>
#include <memory>

#include "cachelib/common/event_loop.h"
#include "daemon/control/control_json.h"
#include "daemon/control/control_request.h"
#include "daemon/control/control_target.h"

namespace tiercache {

class ControlHandler {
 public:
  // One response object; `final` is true for the last one of a request (exactly once).
  using Emit = std::function<void(const ControlJson& response, bool final)>;

  // `progress_interval`: the minimum time between two flush progress lines (0: send every change).
  ControlHandler(EventLoop& loop, ControlTarget& target, Nanos progress_interval);

  void execute(const ControlRequest& request, Emit emit);

 private:
  struct FlushState;

  void status(const Emit& emit);
  void stats(const Emit& emit);
  void mode(const ControlRequest& request, Emit emit);
  void flush(Emit emit);
  void stop(Emit emit);
  void detach(Emit emit);
  void reset_health(Emit emit);
  void policy(const ControlRequest& request, Emit emit);
  void cleaning(const ControlRequest& request, Emit emit);
  // What the target calls with the remaining dirty lines of a flush or detach.
  ControlTarget::ProgressCallback progress_for(const std::shared_ptr<FlushState>& state);
  // A callback for the target that runs `fn` on the loop if the handler still exists.
  ControlTarget::DoneCallback on_loop(std::function<void(Status)> fn);
  void flush_progress(const std::shared_ptr<FlushState>& state, uint64_t remaining);

  EventLoop& loop_;
  ControlTarget& target_;
  const Nanos progress_interval_;
  // Expires with the handler; callbacks hold a weak_ptr to it.
  std::shared_ptr<char> alive_ = std::make_shared<char>();
};

}  // namespace tiercache
