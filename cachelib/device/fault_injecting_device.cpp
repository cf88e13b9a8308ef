#include "cachelib/device/fault_injecting_device.h"

#include <cassert>
#include <map>
#include <random>

#include "cachelib/common/event_loop.h"

namespace tiercache {
namespace {

// Disjoint, merged [start, end) ranges keyed by start.
using RangeSet = std::map<uint64_t, uint64_t>;

void AddRange(RangeSet& set, uint64_t begin, uint64_t end) {
  auto it = set.upper_bound(begin);
  if (it != set.begin() && std::prev(it)->second >= begin) {
    it = std::prev(it);
    begin = it->first;
  }
  while (it != set.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = set.erase(it);
  }
  set[begin] = end;
}

// The parts of [begin, end) that `set` does not cover.
std::vector<std::pair<uint64_t, uint64_t>> Uncovered(const RangeSet& set, uint64_t begin,
                                                     uint64_t end) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  uint64_t pos = begin;
  auto it = set.upper_bound(begin);
  if (it != set.begin()) --it;
  for (; it != set.end() && it->first < end && pos < end; ++it) {
    if (it->second <= pos) continue;
    if (it->first > pos) out.emplace_back(pos, it->first);
    pos = std::max(pos, it->second);
  }
  if (pos < end) out.emplace_back(pos, end);
  return out;
}

}  // namespace

// A power cut in progress: the log it took over and the target writes that undo it.
struct FaultInjectingDevice::Revert {
  struct Piece {
    uint64_t offset;
    const std::byte* data;
    uint64_t length;
  };
  std::deque<Entry> log;
  std::vector<Piece> plan;  // newest write first
  size_t next = 0;
  uint64_t piece_done = 0;
  IoCallback done;
};

FaultInjectingDevice::FaultInjectingDevice(Device& target, std::string name)
    : DeviceWrapper(target, std::move(name)) {}

bool FaultInjectingDevice::admit(const char* op, IoCallback& cb) {
  {
    std::lock_guard lock(mu_);
    if (!dead_) {
      ++in_flight_;
      return true;
    }
  }
  complete_later(std::move(cb), Status::IoError(name() + ": " + op + " after power cut"));
  return false;
}

void FaultInjectingDevice::finish(IoCallback cb, Status s) {
  EventLoop* revert_on = nullptr;
  {
    std::lock_guard lock(mu_);
    --in_flight_;
    if (dead_) {
      if (s.ok()) s = Status::IoError(name() + ": power cut before completion");
      if (in_flight_ == 0 && cut_) revert_on = cut_->loop;
    }
  }
  cb(std::move(s));
  if (revert_on != nullptr) revert_on->post([this] { start_revert(); });
}

void FaultInjectingDevice::record(uint64_t offset, uint64_t length, bool durable,
                                  std::vector<std::byte> undo) {
  std::lock_guard lock(mu_);
  log_.push_back(Entry{next_seq_++, offset, length, durable, std::move(undo)});
}

void FaultInjectingDevice::read_undo(uint64_t offset, std::shared_ptr<std::vector<std::byte>> undo,
                                     uint64_t done, IoCallback then) {
  uint64_t n = std::min<uint64_t>(undo->size() - done, max_io_bytes());
  std::span<std::byte> piece(undo->data() + done, n);
  target().read(offset + done, piece, [this, offset, undo, done, n, then](Status s) {
    if (!s.ok() || done + n == undo->size()) return then(std::move(s));
    read_undo(offset, undo, done + n, then);
  });
}

void FaultInjectingDevice::logged_write(const char* op, uint64_t offset, uint64_t length, bool fua,
                                        std::function<void(IoCallback)> submit, IoCallback cb) {
  if (!admit(op, cb)) return;
  if (fua) {
    return submit([this, offset, length, cb = std::move(cb)](Status s) {
      if (s.ok()) record(offset, length, true, {});
      finish(cb, std::move(s));
    });
  }
  auto undo = std::make_shared<std::vector<std::byte>>(length);
  read_undo(offset, undo, 0, [this, offset, length, undo, submit, cb = std::move(cb)](Status s) {
    if (!s.ok()) return finish(cb, std::move(s));
    submit([this, offset, length, undo, cb](Status s) {
      if (s.ok()) record(offset, length, false, std::move(*undo));
      finish(cb, std::move(s));
    });
  });
}

void FaultInjectingDevice::write_impl(uint64_t offset, std::span<const std::byte> buf,
                                      WriteFlags flags, IoCallback cb) {
  auto submit = [this, offset, buf, flags](IoCallback done) {
    target().write(offset, buf, flags, std::move(done));
  };
  logged_write("write", offset, buf.size(), flags.fua, submit, std::move(cb));
}

void FaultInjectingDevice::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                                             IoCallback cb) {
  auto submit = [this, offset, length, flags](IoCallback done) {
    target().write_zeroes(offset, length, flags, std::move(done));
  };
  logged_write("write_zeroes", offset, length, flags.fua, submit, std::move(cb));
}

void FaultInjectingDevice::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  if (!admit("read", cb)) return;
  target().read(offset, buf, [this, cb = std::move(cb)](Status s) { finish(cb, std::move(s)); });
}

void FaultInjectingDevice::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  if (!admit("discard", cb)) return;
  target().discard(offset, length,
                   [this, cb = std::move(cb)](Status s) { finish(cb, std::move(s)); });
}

void FaultInjectingDevice::prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  if (!admit("prefetch", cb)) return;
  target().prefetch(offset, length,
                    [this, cb = std::move(cb)](Status s) { finish(cb, std::move(s)); });
}

void FaultInjectingDevice::flush_impl(IoCallback cb) {
  if (!admit("flush", cb)) return;
  uint64_t covered;
  {
    std::lock_guard lock(mu_);
    covered = next_seq_ - 1;  // every write completed so far
  }
  target().flush([this, covered, cb = std::move(cb)](Status s) {
    if (s.ok()) {
      std::lock_guard lock(mu_);
      // A flush that completes after the power cut is not acknowledged: it makes nothing durable.
      while (!dead_ && !log_.empty() && log_.front().seq <= covered) log_.pop_front();
    }
    finish(cb, std::move(s));
  });
}

void FaultInjectingDevice::power_cut(IoCallback done, std::optional<uint64_t> keep_seed) {
  EventLoop* loop = EventLoop::current();
  assert(loop != nullptr && "power_cut() must be called on an event loop");
  bool idle;
  {
    std::lock_guard lock(mu_);
    assert(!cut_ && "a power cut is already pending");
    dead_ = true;
    cut_ = PendingCut{loop, std::move(done), keep_seed};
    idle = in_flight_ == 0;
  }
  if (idle) loop->post([this] { start_revert(); });
}

void FaultInjectingDevice::start_revert() {
  auto r = std::make_shared<Revert>();
  std::optional<uint64_t> seed;
  {
    std::lock_guard lock(mu_);
    r->log.swap(log_);
    r->done = std::move(cut_->done);
    seed = cut_->keep_seed;
    cut_.reset();
  }
  std::optional<std::mt19937_64> rng;
  if (seed) rng.emplace(*seed);
  RangeSet kept;  // bytes whose newest write survives: older writes must not touch them
  uint64_t reverted = 0;
  for (auto it = r->log.rbegin(); it != r->log.rend(); ++it) {
    bool keep = it->durable || (rng && ((*rng)() & 1) != 0);
    if (keep) {
      AddRange(kept, it->offset, it->offset + it->length);
      continue;
    }
    ++reverted;
    for (auto [begin, end] : Uncovered(kept, it->offset, it->offset + it->length)) {
      r->plan.push_back({begin, it->undo.data() + (begin - it->offset), end - begin});
    }
  }
  {
    std::lock_guard lock(mu_);
    reverted_ = reverted;
  }
  revert_next(std::move(r));
}

void FaultInjectingDevice::revert_next(std::shared_ptr<Revert> r) {
  if (r->next == r->plan.size()) {
    // Make the reverted content itself durable on targets with a cache of their own.
    return target().flush([r](Status s) { r->done(std::move(s)); });
  }
  const Revert::Piece& p = r->plan[r->next];
  uint64_t n = std::min<uint64_t>(p.length - r->piece_done, max_io_bytes());
  std::span<const std::byte> data(p.data + r->piece_done, n);
  target().write(p.offset + r->piece_done, data, {}, [this, r, n](Status s) {
    if (!s.ok()) return r->done(std::move(s));
    r->piece_done += n;
    if (r->piece_done == r->plan[r->next].length) {
      ++r->next;
      r->piece_done = 0;
    }
    revert_next(r);
  });
}

void FaultInjectingDevice::reset() {
  std::lock_guard lock(mu_);
  assert(!cut_ && "reset() before the power cut completed");
  dead_ = false;
  log_.clear();
}

bool FaultInjectingDevice::powered() const {
  std::lock_guard lock(mu_);
  return !dead_;
}

size_t FaultInjectingDevice::unflushed_writes() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const Entry& e : log_) n += e.durable ? 0 : 1;
  return n;
}

uint64_t FaultInjectingDevice::reverted_writes() const {
  std::lock_guard lock(mu_);
  return reverted_;
}

}  // namespace tiercache
