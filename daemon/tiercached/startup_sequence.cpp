#include "daemon/tiercached/startup_sequence.h"

#include <utility>

namespace tiercache {

void StartupSequence::add(std::string name, Do run, Undo undo) {
  steps_.push_back(Step{std::move(name), std::move(run), std::move(undo)});
}

Status StartupSequence::start() {
  while (done_ < steps_.size()) {
    const Step& step = steps_[done_];
    Status s = step.run();
    if (!s.ok()) {
      failed_step_ = step.name;
      unwind();
      return s;
    }
    ++done_;
  }
  return Status::Ok();
}

void StartupSequence::unwind() {
  while (done_ > 0) {
    --done_;
    if (steps_[done_].undo) steps_[done_].undo();
  }
}

}  // namespace tiercache
