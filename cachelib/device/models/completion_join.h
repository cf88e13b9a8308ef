// CompletionJoin: finishes one modelled request once both halves are done: the data I/O on the
// wrapped device (target_callback) and the timing model (model_done, at the modelled completion
// time). The caller's callback runs exactly once, with the target's status, on the loop of the
// half that arrives last. Shared by both halves; thread-safe.
#pragma once

#include <atomic>
#include <memory>

#include "cachelib/common/event_loop.h"
#include "cachelib/device/device.h"

namespace tiercache {

class CompletionJoin {
 public:
  static std::shared_ptr<CompletionJoin> Create(IoCallback cb) {
    return std::shared_ptr<CompletionJoin>(new CompletionJoin(std::move(cb)));
  }

  // The callback to hand to the wrapped device.
  static IoCallback TargetCallback(const std::shared_ptr<CompletionJoin>& join) {
    return [join](Status s) {
      join->status_ = std::move(s);
      join->arrive();
    };
  }

  // Runs model_done() on `loop` once its clock reaches `when` (never inline).
  static void ModelDoneAt(const std::shared_ptr<CompletionJoin>& join, EventLoop* loop,
                          Nanos when) {
    loop->schedule_at(when, [join] { join->model_done(); });
  }

  // The modelled time has come. REQUIRES: called from an event-loop task, not from a submit path.
  void model_done() { arrive(); }

 private:
  explicit CompletionJoin(IoCallback cb) : cb_(std::move(cb)) {}
  void arrive() {
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) cb_(std::move(status_));
  }

  IoCallback cb_;
  Status status_;  // written by the target half before it arrives
  std::atomic<int> remaining_{2};
};

}  // namespace tiercache
