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
  merged += o.merged;
  fixed_buffers += o.fixed_buffers;
  return *this;
}

IoQueue::IoQueue(EventLoop& loop, uint32_t queue_depth, int eventfd)
    : loop_(loop), queue_depth_(queue_depth), eventfd_(eventfd) {}

IoQueue::~IoQueue() {
  assert(in_flight_ == 0 && waiting_.empty() && "IoQueue destroyed while busy");
  if (eventfd_ >= 0) close(eventfd_);
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
  c.merged = merged_.load(std::memory_order_relaxed);
  c.fixed_buffers = fixed_buffers_.load(std::memory_order_relaxed);
  return c;
}

void IoQueue::submit(IoOp op) {
  // Keep FIFO order: nothing overtakes a request that is already waiting.
  if (!waiting_.empty()) return waiting_.push_back(std::move(op));
  if (join_round(op)) return;
  if (in_flight_ < queue_depth_) {
    start(std::move(op));
  } else {
    waiting_.push_back(std::move(op));
  }
}

bool IoQueue::join_round(IoOp& op) {
  if (round_.empty() || submitting_ || op.kind == IoOp::Kind::kDatasync) return false;
  Slot& tail = slots_[round_.back()];
  const IoOp& t = tail.op;
  if (t.kind != op.kind || t.fd != op.fd || t.rw_flags != op.rw_flags ||
      t.offset + t.length != op.offset || t.length + op.length > kMaxMergeBytes ||
      tail.parts.size() + 1 > kMaxMergeParts) {
    return false;
  }
  if (tail.parts.empty()) {
    // The first part keeps its callback; the slot's own op now describes the whole range.
    tail.parts.push_back(std::move(tail.op));
    IoOp& first = tail.parts.front();
    tail.op = IoOp{first.kind, first.fd, first.buf, first.length, first.offset, first.rw_flags, {}};
  }
  tail.op.length += op.length;
  tail.parts.push_back(std::move(op));
  merged_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void IoQueue::start(IoOp op) {
  uint32_t slot;
  if (free_.empty()) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(Slot{std::move(op), {}, {}});
  } else {
    slot = free_.back();
    free_.pop_back();
    slots_[slot].op = std::move(op);
  }
  ++in_flight_;
  // Started while the round is being submitted (a refusal made room): it joins that submission.
  if (submitting_) return prepare(slot);
  // The first of a round schedules the submission; the rest of the round joins it.
  if (!round_pending_) {
    round_pending_ = true;
    loop_.post([this] { end_round(); });
  }
  round_.push_back(slot);
}

void IoQueue::settle_buffers(Slot& s) {
  if (s.parts.empty()) return;
  bool contiguous = true;
  for (size_t i = 1; i < s.parts.size() && contiguous; ++i) {
    const IoOp& prev = s.parts[i - 1];
    contiguous = static_cast<char*>(prev.buf) + prev.length == s.parts[i].buf;
  }
  if (contiguous) return;  // s.op.buf is the first part's: one plain operation
  s.iov.reserve(s.parts.size());
  for (const IoOp& p : s.parts) s.iov.push_back(iovec{p.buf, p.length});
}

void IoQueue::end_round() {
  submitting_ = true;
  for (uint32_t slot : round_) {
    settle_buffers(slots_[slot]);
    prepare(slot);
  }
  round_.clear();
  submit_prepared();
  submitting_ = false;
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
  Slot& s = slots_[slot];
  IoOp op = std::move(s.op);
  s.op.done = nullptr;
  s.parts.clear();
  s.iov.clear();
  free_.push_back(slot);
  --in_flight_;
  return op;
}

void IoQueue::finish(uint32_t slot, long res) {
  if (slots_[slot].parts.empty()) {
    IoOp op = release(slot);
    return op.done(res);
  }
  std::vector<IoOp> parts = std::move(slots_[slot].parts);
  release(slot);
  fan_out(std::move(parts), res);
}

void IoQueue::fan_out(std::vector<IoOp> parts, long res) {
  if (res < 0) {
    for (IoOp& p : parts) p.done(res);
    return;
  }
  size_t left = static_cast<size_t>(res);
  for (size_t i = 0; i < parts.size(); ++i) {
    IoOp& p = parts[i];
    if (left >= p.length) {
      left -= p.length;
      p.done(static_cast<long>(p.length));
    } else if (left > 0 || i == 0) {
      // Where the transfer stopped: the part's own short transfer (0 for the first part is what
      // it would have got alone, e.g. at the end of the file).
      p.done(static_cast<long>(left));
      left = 0;
    } else {
      submit(std::move(p));  // not reached: the kernel may still do it as an operation alone
    }
  }
}

void IoQueue::refuse(uint32_t slot, long res) {
  std::vector<IoOp> parts = std::move(slots_[slot].parts);
  IoOp op = release(slot);
  if (parts.empty()) parts.push_back(std::move(op));
  for (IoOp& p : parts) loop_.post([done = std::move(p.done), res] { done(res); });
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
  while (!waiting_.empty()) {
    IoOp& next = waiting_.front();
    if (!join_round(next)) {
      if (in_flight_ >= queue_depth_) return;
      start(std::move(next));
    }
    waiting_.pop_front();
  }
}

}  // namespace tiercache
