// TrustFlusher: runs the engine's trust rounds (Engine::trust_round) on the background loop, at
// most one at a time and `interval` apart, while lines are untrusted, so that what a client read
// or wrote stays cached after a crash or kill -9 even if it never flushes. Owned by the Engine;
// note_untrusted() is thread-safe.
#pragma once

#include <atomic>

#include "cachelib/common/clock.h"
#include "cachelib/common/event_loop.h"
#include "cachelib/device/device.h"

namespace tiercache {

class Engine;

class TrustFlusher {
 public:
  TrustFlusher(Engine& engine, EventLoop& loop, Nanos interval);
  ~TrustFlusher();
  TrustFlusher(const TrustFlusher&) = delete;
  TrustFlusher& operator=(const TrustFlusher&) = delete;

  // A line's data changed: a trust round runs within `interval` (none when interval is 0).
  void note_untrusted();
  // No round starts after this (a running one finishes; close() waits for it).
  void stop();
  // Runs a round now (Cache::trust_round): Busy while one runs or once stopped.
  void round_now(IoCallback done);
  // Rounds completed (tests and `tiercache stats`).
  uint64_t rounds() const { return rounds_.load(std::memory_order_relaxed); }

 private:
  void arm();
  void fire();
  // Counts a round in flight unless stopping (false: nothing counted).
  bool enter();
  void leave();
  // REQUIRES enter() and running_ set by the caller. Runs a round; done gets its status.
  void run_round(IoCallback done);

  Engine& engine_;
  EventLoop& loop_;
  const Nanos interval_;
  std::atomic<bool> pending_{false};  // a timer is armed or a round will follow
  std::atomic<bool> running_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> armed_{false};
  std::atomic<EventLoop::TimerId> timer_{0};
  std::atomic<uint64_t> rounds_{0};
};

}  // namespace tiercache
