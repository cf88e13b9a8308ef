#include "cachelib/metadata/bounded_io.h"

#include <cassert>
#include <memory>

#include "cachelib/common/event_loop.h"
#include "cachelib/common/pooled_once.h"

namespace tiercache {
namespace {

struct BoundedState : std::enable_shared_from_this<BoundedState> {
  size_t count = 0, window = 1, next = 0, in_flight = 0;
  Status first_error;
  std::function<void(size_t, IoCallback)> submit;
  IoCallback done;

  void pump() {
    while (first_error.ok() && in_flight < window && next < count) {
      ++in_flight;
      size_t i = next++;
      // Pooled: a shared_ptr is too big for std::function's inline buffer, and a persist writes
      // one page per changed page.
      submit(i, PooledOnce([self = shared_from_this()](Status s) {
               self->completed(std::move(s));
             }));
    }
  }

  void completed(Status s) {
    --in_flight;
    if (!s.ok() && first_error.ok()) first_error = std::move(s);
    pump();
    if (in_flight == 0 && (next == count || !first_error.ok())) {
      IoCallback cb = std::move(done);
      submit = nullptr;  // drops captures that may refer back to this state
      cb(std::move(first_error));
    }
  }
};

}  // namespace

void PostStatus(IoCallback cb, Status status) {
  EventLoop* loop = EventLoop::current();
  assert(loop != nullptr && "metadata I/O must start on an event loop");
  loop->post([cb = std::move(cb), status = std::move(status)]() mutable { cb(std::move(status)); });
}

void RunBounded(size_t count, size_t window, std::function<void(size_t, IoCallback)> submit,
                IoCallback done) {
  if (count == 0) return PostStatus(std::move(done), Status::Ok());
  auto state = std::make_shared<BoundedState>();
  state->count = count;
  state->window = window == 0 ? 1 : window;
  state->submit = std::move(submit);
  state->done = std::move(done);
  state->pump();
}

}  // namespace tiercache
