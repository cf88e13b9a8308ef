// RecordFlusher: persists changed line records at most `interval` after a change, without waiting
// for a FLUSH, so lines a client filled (read misses, write-through) come back warm after a crash
// or kill -9 even from a client that never flushes. Owned by the Engine; note_change() is
// thread-safe, the timer runs on the engine's background loop.
#pragma once

#include <atomic>

#include "cachelib/common/clock.h"
#include "cachelib/common/event_loop.h"

namespace tiercache {

class Engine;

class RecordFlusher {
 public:
  RecordFlusher(Engine& engine, EventLoop& loop, Nanos interval);
  ~RecordFlusher();

  // A record changed: a persist runs within `interval` (none when interval is 0).
  void note_change();
  // No persist starts after this (one running finishes); call before the engine goes idle.
  void stop();

 private:
  void arm();

  Engine& engine_;
  EventLoop& loop_;
  const Nanos interval_;
  std::atomic<bool> pending_{false};   // a change waits for the timer's persist
  std::atomic<bool> stopping_{false};
  std::atomic<bool> armed_{false};
  std::atomic<EventLoop::TimerId> timer_{0};
};

}  // namespace tiercache
