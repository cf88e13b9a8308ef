#include "cachelib/device/models/hdd_model.h"

#include <cmath>
#include <limits>

namespace tiercache {
namespace {

// A continuation that lands within this fraction of a turn of its sector needs no extra turn
// (absorbs nanosecond rounding of back-to-back transfers).
constexpr double kAngleSlack = 1e-6;

Nanos CeilNs(double ns) { return Nanos(static_cast<int64_t>(std::ceil(ns))); }
double Frac(double v) { return v - std::floor(v); }

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

Result<std::unique_ptr<HddModel>> HddModel::Create(Device& target, const HddParams& params,
                                                   uint64_t seed) {
  TC_RETURN_IF_ERROR(params.validate());
  return std::unique_ptr<HddModel>(new HddModel(target, params, seed));
}

HddModel::HddModel(Device& target, const HddParams& params, uint64_t seed)
    : DeviceWrapper(target, params.name + "(" + target.name() + ")"),
      params_(params),
      geo_(params, target.size()),
      phase_(static_cast<double>(SplitMix64(seed) >> 11) / 9007199254740992.0),
      buffer_(geo_, params.buffer_segments, params.segment_bytes) {}

Nanos HddModel::interface_time(uint64_t bytes) const {
  return CeilNs(static_cast<double>(bytes) / (params_.interface_mb_s * 1e6) * 1e9);
}

Nanos HddModel::link_transfer_locked(Nanos from, uint64_t bytes) {
  link_free_ = std::max(link_free_, from) + interface_time(bytes);
  return link_free_;
}

bool HddModel::cache_has_room_locked(uint64_t length) const {
  const size_t entries = destage_.size() + (current_ && current_->kind == Kind::kDestage ? 1 : 0);
  return dirty_bytes_ + length <= params_.write_cache_bytes &&
         entries < params_.write_cache_entries;
}

HddModel::Counters HddModel::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

void HddModel::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  auto join = CompletionJoin::Create(std::move(cb));
  target().read(offset, buf, CompletionJoin::TargetCallback(join));
  submit_media(Kind::kRead, offset, buf.size(), std::move(join));
}

void HddModel::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                          IoCallback cb) {
  auto join = CompletionJoin::Create(std::move(cb));
  target().write(offset, buf, flags, CompletionJoin::TargetCallback(join));
  submit_write(offset, buf.size(), flags.fua, std::move(join));
}

void HddModel::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                                 IoCallback cb) {
  auto join = CompletionJoin::Create(std::move(cb));
  target().write_zeroes(offset, length, flags, CompletionJoin::TargetCallback(join));
  submit_write(offset, length, flags.fua, std::move(join));
}

void HddModel::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  // Hard disks have no TRIM: the command costs its overhead and nothing else.
  auto join = CompletionJoin::Create(std::move(cb));
  target().discard(offset, length, CompletionJoin::TargetCallback(join));
  EventLoop* loop = EventLoop::current();
  {
    std::lock_guard lock(mu_);
    buffer_.invalidate(offset, length);
  }
  CompletionJoin::ModelDoneAt(join, loop, loop->clock().now() + params_.command_overhead());
}

void HddModel::flush_impl(IoCallback cb) {
  auto join = CompletionJoin::Create(std::move(cb));
  target().flush(CompletionJoin::TargetCallback(join));
  EventLoop* loop = EventLoop::current();
  const Nanos now = loop->clock().now();
  std::lock_guard lock(mu_);
  if (oldest_destage_seq_locked() > last_destage_seq_) {
    CompletionJoin::ModelDoneAt(join, loop, now + params_.command_overhead());
    return;
  }
  flushes_.push_back(Waiter{last_destage_seq_, 0, loop, std::move(join)});
  dispatch_locked(now);
}

void HddModel::submit_media(Kind kind, uint64_t offset, uint64_t length,
                            std::shared_ptr<CompletionJoin> join) {
  EventLoop* loop = EventLoop::current();
  const Nanos now = loop->clock().now();
  std::lock_guard lock(mu_);
  if (kind == Kind::kRead && buffer_.covers(offset, length, now)) {
    ++counters_.buffer_hits;
    CompletionJoin::ModelDoneAt(join, loop,
                                link_transfer_locked(now + params_.command_overhead(), length));
    return;
  }
  if (kind != Kind::kRead) buffer_.invalidate(offset, length);
  queue_.push_back(
      Op{next_seq_++, kind, offset, length, now + params_.command_overhead(), loop, std::move(join)});
  dispatch_locked(now);
}

void HddModel::submit_write(uint64_t offset, uint64_t length, bool fua,
                            std::shared_ptr<CompletionJoin> join) {
  if (!params_.write_cache || fua || length > params_.write_cache_bytes) {
    return submit_media(Kind::kWrite, offset, length, std::move(join));
  }
  EventLoop* loop = EventLoop::current();
  const Nanos now = loop->clock().now();
  std::lock_guard lock(mu_);
  buffer_.invalidate(offset, length);
  if (blocked_writes_.empty() && cache_has_room_locked(length)) {
    cache_write_locked(offset, length, loop, std::move(join), now);
    dispatch_locked(now);
  } else {
    blocked_writes_.push_back(Waiter{offset, length, loop, std::move(join)});
  }
}

void HddModel::cache_write_locked(uint64_t offset, uint64_t length, EventLoop* loop,
                                  std::shared_ptr<CompletionJoin> join, Nanos now) {
  dirty_bytes_ += length;
  ++counters_.cached_writes;
  last_destage_seq_ = next_seq_++;
  destage_.push_back(Op{last_destage_seq_, Kind::kDestage, offset, length,
                        now + params_.command_overhead(), loop, nullptr});
  CompletionJoin::ModelDoneAt(join, loop,
                              link_transfer_locked(now + params_.command_overhead(), length));
}

uint64_t HddModel::oldest_destage_seq_locked() const {
  uint64_t oldest = std::numeric_limits<uint64_t>::max();
  if (!destage_.empty()) oldest = destage_.front().seq;
  if (current_ && current_->kind == Kind::kDestage) oldest = std::min(oldest, current_->seq);
  return oldest;
}

HddModel::Plan HddModel::plan_locked(const Op& op, Nanos t) const {
  Plan p;
  p.start = std::max(t, op.ready);
  if (op.kind == Kind::kRead) {
    if (auto fin = buffer_.continue_stream(op.offset, op.offset + op.length, p.start)) {
      p.access_end = p.start;
      p.finish = std::max(*fin, p.start);
      p.continuation = true;
      return p;
    }
  }
  const bool write = op.kind != Kind::kRead;
  // Continuing exactly where the head stopped needs no seek (cylinder skew hides the switch).
  const double seek =
      op.offset == head_end_ ? 0 : geo_.seek_ns(head_cyl_, geo_.cylinder_of(op.offset), write);
  const double rev = geo_.revolution_ns();
  const double arrive = static_cast<double>(p.start.count()) + seek;
  double wait = Frac(geo_.angle_of(op.offset) - Frac(arrive / rev + phase_));
  // The sector is passing under the head right now: start at its exact time (a hair in the past)
  // so that rounding never accumulates over a run of back-to-back transfers.
  if (wait > 1.0 - kAngleSlack) wait -= 1.0;
  const double access = arrive + wait * rev;
  p.access_end = std::max(p.start, CeilNs(access));
  p.finish = std::max(p.access_end, CeilNs(access + geo_.transfer_ns(op.offset, op.length)));
  return p;
}

bool HddModel::pick_locked(Nanos t, std::deque<Op>** from, size_t* index) {
  // A full write cache or a waiting flush makes destaging the priority.
  const bool must_destage =
      !destage_.empty() && (!blocked_writes_.empty() || !flushes_.empty());
  if (!must_destage && !queue_.empty() && t - queue_.front().ready >= params_.starvation()) {
    ++counters_.starved_picks;
    *from = &queue_;
    *index = 0;
    return true;
  }
  bool found = false;
  Nanos best = Nanos::max();
  auto consider = [&](std::deque<Op>& q, size_t limit) {
    for (size_t i = 0; i < q.size() && i < limit; ++i) {
      const Nanos access = plan_locked(q[i], t).access_end;
      if (access < best) {
        best = access;
        *from = &q;
        *index = i;
        found = true;
      }
    }
  };
  if (!must_destage) consider(queue_, params_.ncq_depth);
  consider(destage_, params_.destage_window);
  return found;
}

void HddModel::dispatch_locked(Nanos t) {
  if (current_) return;
  std::deque<Op>* from = nullptr;
  size_t index = 0;
  if (!pick_locked(t, &from, &index)) return;
  Op op = std::move((*from)[index]);
  from->erase(from->begin() + static_cast<std::ptrdiff_t>(index));
  current_plan_ = plan_locked(op, t);
  buffer_.stop_stream(current_plan_.start);
  if (current_plan_.continuation) ++counters_.stream_continuations;
  ++counters_.media_ops;
  EventLoop* loop = op.loop;
  current_ = std::move(op);
  loop->schedule_at(current_plan_.finish, [this] { on_head_done(); });
}

void HddModel::on_head_done() {
  std::shared_ptr<CompletionJoin> done;
  {
    std::lock_guard lock(mu_);
    Op op = std::move(*current_);
    current_.reset();
    const Nanos t = current_plan_.finish;
    counters_.head_busy += current_plan_.finish - current_plan_.start;
    head_end_ = op.offset + op.length;
    head_cyl_ = geo_.cylinder_of(head_end_ - 1);
    if (op.kind == Kind::kRead) {
      buffer_.add(op.offset, head_end_);
      serve_buffered_locked(t);
    }
    if (op.kind == Kind::kDestage) {
      dirty_bytes_ -= op.length;
      ++counters_.destages;
      finish_destage_locked(t);
    }
    done = std::move(op.join);
    dispatch_locked(t);
    if (!current_ && op.kind == Kind::kRead) {
      buffer_.start_stream(op.offset, head_end_, t, head_end_ + params_.readahead_bytes);
    }
  }
  if (done) done->model_done();
}

void HddModel::serve_buffered_locked(Nanos t) {
  // As a drive's firmware does: a queued read whose data the buffer now holds (a read of the same
  // blocks just finished) is answered from the buffer instead of waiting for the platter again.
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (it->kind != Kind::kRead || !buffer_.covers(it->offset, it->length, t)) {
      ++it;
      continue;
    }
    ++counters_.buffer_hits;
    CompletionJoin::ModelDoneAt(it->join, it->loop,
                                link_transfer_locked(std::max(t, it->ready), it->length));
    it = queue_.erase(it);
  }
}

void HddModel::finish_destage_locked(Nanos t) {
  while (!blocked_writes_.empty() && cache_has_room_locked(blocked_writes_.front().length)) {
    Waiter w = std::move(blocked_writes_.front());
    blocked_writes_.pop_front();
    cache_write_locked(w.seq_or_offset, w.length, w.loop, std::move(w.join), t);
  }
  const uint64_t oldest = oldest_destage_seq_locked();
  while (!flushes_.empty() && flushes_.front().seq_or_offset < oldest) {
    Waiter w = std::move(flushes_.front());
    flushes_.pop_front();
    CompletionJoin::ModelDoneAt(w.join, w.loop, t + params_.command_overhead());
  }
}

}  // namespace tiercache
