#include "cachelib/common/event_loop.h"

namespace tiercache {
namespace {
thread_local EventLoop* t_current_loop = nullptr;
}  // namespace

EventLoop* EventLoop::current() { return t_current_loop; }

EventLoop::ScopedCurrent::ScopedCurrent(EventLoop* loop) : previous_(t_current_loop) {
  t_current_loop = loop;
}

EventLoop::ScopedCurrent::~ScopedCurrent() { t_current_loop = previous_; }

}  // namespace tiercache
