// StartupSequence: tiercached's startup as named steps, each with an undo (OCF's attach
// pipeline). start() runs them in order; when step k fails, the undos of steps k-1..1 run in
// reverse and failed_step() names step k. unwind() is the shutdown: every undo, in reverse.
// Owns the step functions (not what they create). Not thread-safe: one thread runs it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cachelib/common/status.h"

namespace tiercache {

class StartupSequence {
 public:
  using Do = std::function<Status()>;
  using Undo = std::function<void()>;

  // Appends a step; `undo` (may be empty) reverses a successful `run`.
  void add(std::string name, Do run, Undo undo = nullptr);

  // Runs the steps not yet run, in order. On a failure: undoes the steps done, newest first,
  // and returns the step's error; failed_step() names the step.
  Status start();
  const std::string& failed_step() const { return failed_step_; }

  // Undoes every step done, newest first. Safe to call again (nothing is left to undo).
  void unwind();

  // How many steps are done (and not undone).
  size_t done() const { return done_; }

 private:
  struct Step {
    std::string name;
    Do run;
    Undo undo;
  };
  std::vector<Step> steps_;
  size_t done_ = 0;
  std::string failed_step_;
};

}  // namespace tiercache
