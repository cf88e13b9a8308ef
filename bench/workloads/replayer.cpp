#include "bench/workloads/replayer.h"

#include <algorithm>

#include "bench/workloads/rng.h"

namespace tiercache::bench {

double ReplayStats::mb_per_s() const {
  return seconds() > 0 ? static_cast<double>(bytes_read + bytes_written) / 1e6 / seconds() : 0;
}

double ReplayStats::iops() const {
  return seconds() > 0 ? static_cast<double>(ops) / seconds() : 0;
}

double ReplayStats::mean_latency_us() const {
  const uint64_t data_ops = reads + writes + discards;
  return data_ops ? static_cast<double>(total_latency.count()) / 1e3 / data_ops : 0;
}

Replayer::Replayer(Device& device, const Trace& trace, uint64_t data_seed)
    : device_(device), trace_(trace) {
  const uint64_t bs = device_.block_size();
  uint64_t max_len = 0;
  for (const auto& r : trace_.records) {
    if (r.op == TraceOp::kRead || r.op == TraceOp::kWrite) max_len = std::max(max_len, align(r).length);
  }
  buffer_bytes_ = std::max<uint64_t>(max_len, bs);
  if (trace_.count(TraceOp::kWrite) > 0) {
    write_data_.resize(buffer_bytes_);
    Rng rng(data_seed);
    for (size_t i = 0; i < write_data_.size(); i += 8) {
      const uint64_t v = rng.next();
      for (size_t k = 0; k < 8 && i + k < write_data_.size(); ++k) {
        write_data_[i + k] = std::byte(v >> (8 * k));
      }
    }
  }
  issued_at_.assign(trace_.records.size(), Nanos(-1));
  completed_at_.assign(trace_.records.size(), Nanos(-1));
}

Replayer::~Replayer() { *alive_ = false; }

std::vector<Nanos> Replayer::completion_times() const {
  std::vector<Nanos> out(completed_at_.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = completed_at_[i] < Nanos(0) ? Nanos(-1) : completed_at_[i] - start_;
  }
  return out;
}

Replayer::Aligned Replayer::align(const TraceRecord& r) const {
  const uint64_t bs = device_.block_size();
  const uint64_t size = device_.size() / bs * bs;
  uint64_t start = r.offset / bs * bs;
  uint64_t end = (r.offset + r.length + bs - 1) / bs * bs;
  uint64_t len = std::min({std::max(end - start, bs), size, device_.max_io_bytes() / bs * bs});
  if (start >= size) start %= size;
  if (start + len > size) start = size - len;
  return {start, len};
}

void Replayer::start(DoneCallback done) {
  loop_ = EventLoop::current();
  done_ = std::move(done);
  start_ = last_issue_ = loop_->clock().now();
  if (trace_.records.empty()) {
    finished_ = true;
    loop_->post([this, alive = alive_] {
      if (*alive) done_(stats_);
    });
    return;
  }
  pump();
}

void Replayer::pump() {
  const Nanos now = loop_->clock().now();
  while (next_ < trace_.records.size()) {
    const TraceRecord& r = trace_.records[next_];
    Nanos base = last_issue_;
    if (r.dep >= 0) {
      if (completed_at_[r.dep] < Nanos(0)) return;  // on_complete(dep) pumps again
      base = std::max(base, completed_at_[r.dep]);
    }
    const Nanos when = base + r.think;
    if (when > now) {
      if (!timer_armed_) {
        timer_armed_ = true;
        loop_->schedule_at(when, [this, alive = alive_] {
          if (!*alive) return;
          timer_armed_ = false;
          pump();
        });
      }
      return;
    }
    last_issue_ = now;
    issue(next_++);
  }
}

std::byte* Replayer::acquire_buffer() {
  if (free_buffers_.empty()) {
    buffers_.push_back(std::make_unique<std::byte[]>(buffer_bytes_));
    return buffers_.back().get();
  }
  std::byte* b = free_buffers_.back();
  free_buffers_.pop_back();
  return b;
}

void Replayer::release_buffer(std::byte* buf) { free_buffers_.push_back(buf); }

void Replayer::issue(size_t index) {
  const TraceRecord& r = trace_.records[index];
  issued_at_[index] = loop_->clock().now();
  auto cb = [this, index, alive = alive_](Status s) {
    if (*alive) on_complete(index, s);
  };
  if (r.op == TraceOp::kFlush) return device_.flush(std::move(cb));
  const Aligned a = align(r);
  switch (r.op) {
    case TraceOp::kRead: {
      std::byte* buf = acquire_buffer();
      device_.read(a.offset, std::span<std::byte>(buf, a.length),
                   [this, buf, cb = std::move(cb), alive = alive_](Status s) {
                     if (*alive) release_buffer(buf);
                     cb(std::move(s));
                   });
      return;
    }
    case TraceOp::kWrite:
      return device_.write(a.offset, std::span<const std::byte>(write_data_.data(), a.length), {},
                           std::move(cb));
    default:
      return device_.discard(a.offset, a.length, std::move(cb));
  }
}

void Replayer::on_complete(size_t index, const Status& status) {
  const Nanos now = loop_->clock().now();
  const TraceRecord& r = trace_.records[index];
  completed_at_[index] = now;
  ++completed_;
  ++stats_.ops;
  if (!status.ok() && stats_.errors++ == 0) stats_.first_error = status;
  const uint64_t len = r.op == TraceOp::kFlush ? 0 : align(r).length;
  switch (r.op) {
    case TraceOp::kRead: ++stats_.reads; stats_.bytes_read += len; break;
    case TraceOp::kWrite: ++stats_.writes; stats_.bytes_written += len; break;
    case TraceOp::kFlush: ++stats_.flushes; break;
    case TraceOp::kDiscard: ++stats_.discards; break;
  }
  if (r.op != TraceOp::kFlush) stats_.total_latency += now - issued_at_[index];
  if (completed_ == trace_.records.size()) {
    stats_.elapsed = now - start_;
    finished_ = true;
    done_(stats_);
    return;
  }
  pump();
}

}  // namespace tiercache::bench
