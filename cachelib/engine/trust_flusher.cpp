#include "cachelib/engine/trust_flusher.h"

#include "cachelib/engine/engine.h"

namespace tiercache {

TrustFlusher::TrustFlusher(Engine& engine, EventLoop& loop, Nanos interval)
    : engine_(engine), loop_(loop), interval_(interval) {}

TrustFlusher::~TrustFlusher() {
  // A cache dropped without close() (crash tests) must not leave a timer pointing at it.
  if (armed_.load()) loop_.cancel(timer_.load());
}

void TrustFlusher::note_untrusted() {
  if (interval_.count() == 0 || stopping_.load(std::memory_order_relaxed)) return;
  if (pending_.exchange(true, std::memory_order_acq_rel)) return;
  arm();
}

void TrustFlusher::arm() {
  armed_.store(true);
  timer_.store(loop_.schedule_after(interval_, [this] { fire(); }));
}

void TrustFlusher::fire() {
  armed_.store(false);
  if (!enter()) return;
  // Rounds never overlap: a second round's marks could vouch for data the first's flush missed.
  if (running_.exchange(true)) {
    arm();
    return leave();
  }
  // Cleared before the round: a line untrusted from now on arms the next one.
  pending_.store(false, std::memory_order_release);
  run_round([](Status) {});
}

void TrustFlusher::round_now(IoCallback done) {
  if (!enter()) return done(Status::Busy("the cache is closing"));
  if (running_.exchange(true)) {
    done(Status::Busy("a trust round is running"));
    return leave();
  }
  run_round(std::move(done));
}

bool TrustFlusher::enter() {
  // Counted in flight before stopping_ is read (both sequentially consistent): close() sets
  // stopping_, then waits for nothing in flight, so either it waits for this round or the round
  // sees it stopping and never starts.
  engine_.inflight.fetch_add(1);
  if (!stopping_.load()) return true;
  leave();
  return false;
}

void TrustFlusher::leave() { engine_.inflight.fetch_sub(1, std::memory_order_release); }

void TrustFlusher::run_round(IoCallback done) {
  engine_.trust_round([this, done = std::move(done)](Status s) {
    rounds_.fetch_add(1, std::memory_order_relaxed);
    running_.store(false);
    // No re-arming here: a line skipped (busy) or changed during the round asks again when its
    // request completes (Engine::untrust), and a failed round is retried on the next change.
    done(std::move(s));
    leave();
  });
}

void TrustFlusher::stop() {
  stopping_.store(true);
  if (armed_.exchange(false)) loop_.cancel(timer_.load());
}

}  // namespace tiercache
