#include "cachelib/device/io_queue.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cassert>

namespace tiercache {

IoQueueCounters& IoQueueCounters::operator+=(const IoQueueCounters& o) {
  rounds += o.rounds;
  submit_calls += o.submit_calls;
  ops += o.ops;
  in_flight_sum += o.in_flight_sum;
  return *this;
}

IoQueue::IoQueue(EventLoop& loop, uint32_t queue_depth, int eventfd)
    : loop_(loop), queue_depth_(queue_depth), eventfd_(eventfd) {}

IoQueue::~IoQueue() {
  assert(in_flight_ == 0 && waiting_.empty() && "IoQueue destroyed while busy");
  close(eventfd_);
}

Status IoQueue::watch() {
  Status s = loop_.watch_fd(eventfd_, EPOLLIN, [this](uint32_t) { on_eventfd(); });
  watched_ = s.ok();
  return s;
}

void IoQueue::unwatch() {
  if (watched_) loop_.unwatch_fd(eventfd_);
  watched_ = false;
}

IoQueueCounters IoQueue::counters() const {
  IoQueueCounters c;
  c.rounds = rounds_.load(std::memory_order_relaxed);
  c.submit_calls = submit_calls_.load(std::memory_order_relaxed);
  c.ops = ops_.load(std::memory_order_relaxed);
  c.in_flight_sum = in_flight_sum_.load(std::memory_order_relaxed);
  return c;
}

void IoQueue::submit(IoOp op) {
  // Keep FIFO order: nothing overtakes a request that is already waiting.
  if (in_flight_ < queue_depth_ && waiting_.empty()) {
    start(std::move(op));
  } else {
    waiting_.push_back(std::move(op));
  }
}

void IoQueue::start(IoOp op) {
  uint32_t slot;
  if (free_.empty()) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(std::move(op));
  } else {
    slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(op);
  }
  ++in_flight_;
  // The first of a round schedules the submission; the rest of the round joins it.
  if (!round_pending_) {
    round_pending_ = true;
    loop_.post([this] { end_round(); });
  }
  prepare(slot);
}

void IoQueue::end_round() {
  submit_prepared();
  // Only now: operations started during submit_prepared() (refusals make room) joined it.
  round_pending_ = false;
  rounds_.fetch_add(1, std::memory_order_relaxed);
  in_flight_sum_.fetch_add(in_flight_, std::memory_order_relaxed);
}

void IoQueue::count_submit_call(uint64_t ops) {
  submit_calls_.fetch_add(1, std::memory_order_relaxed);
  ops_.fetch_add(ops, std::memory_order_relaxed);
}

IoOp IoQueue::release(uint32_t slot) {
  IoOp op = std::move(slots_[slot]);
  slots_[slot].done = nullptr;
  free_.push_back(slot);
  --in_flight_;
  return op;
}

void IoQueue::finish(uint32_t slot, long res) {
  IoOp op = release(slot);
  op.done(res);
}

void IoQueue::refuse(uint32_t slot, long res) {
  IoOp op = release(slot);
  loop_.post([done = std::move(op.done), res] { done(res); });
  start_waiting();
}

void IoQueue::on_eventfd() {
  uint64_t count;
  ssize_t n = read(eventfd_, &count, sizeof count);
  (void)n;  // EAGAIN: nothing new; reap() finds out anyway
  reap();
  start_waiting();
}

void IoQueue::start_waiting() {
  while (in_flight_ < queue_depth_ && !waiting_.empty()) {
    IoOp op = std::move(waiting_.front());
    waiting_.pop_front();
    start(std::move(op));
  }
}

}  // namespace tiercache
