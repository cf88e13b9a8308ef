#include "cachelib/engine/record_flusher.h"

#include "cachelib/engine/engine.h"

namespace tiercache {

RecordFlusher::RecordFlusher(Engine& engine, EventLoop& loop, Nanos interval)
    : engine_(engine), loop_(loop), interval_(interval) {}

RecordFlusher::~RecordFlusher() {
  // A cache dropped without close() (crash tests) must not leave a timer pointing at it.
  if (armed_.load()) loop_.cancel(timer_.load());
}

void RecordFlusher::note_change() {
  if (interval_.count() == 0 || stopping_.load(std::memory_order_relaxed)) return;
  if (pending_.exchange(true, std::memory_order_acq_rel)) return;
  arm();
}

void RecordFlusher::arm() {
  armed_.store(true);
  timer_.store(loop_.schedule_after(interval_, [this] {
    armed_.store(false);
    if (stopping_.load()) return;
    pending_.store(false, std::memory_order_release);
    // Counted in flight: close() waits for it.
    engine_.inflight.fetch_add(1, std::memory_order_relaxed);
    engine_.persist([this](Status) { engine_.inflight.fetch_sub(1, std::memory_order_release); });
  }));
}

void RecordFlusher::stop() {
  stopping_.store(true);
  if (armed_.exchange(false)) loop_.cancel(timer_.load());
}

}  // namespace tiercache
