#include "cachelib/device/models/hdd_read_buffer.h"

#include <algorithm>
#include <cmath>

namespace tiercache {

uint64_t HddReadBuffer::stream_pos(Nanos t) const {
  if (!stream_ || t <= stream_->t0) return stream_ ? stream_->pos0 : 0;
  const double turns = static_cast<double>((t - stream_->t0).count()) / geo_.revolution_ns();
  return std::min(geo_.advance(stream_->pos0, turns), stream_->limit);
}

bool HddReadBuffer::covers(uint64_t offset, uint64_t len, Nanos now) const {
  const uint64_t end = offset + len;
  if (stream_ && offset >= stream_->seg_start && end <= stream_pos(now)) return true;
  for (const Range& r : segments_) {
    if (offset >= r.start && end <= r.end) return true;
  }
  return false;
}

void HddReadBuffer::add(uint64_t start, uint64_t end) {
  if (end <= start) return;
  if (end - start > segment_bytes_) start = end - segment_bytes_;
  // A range that extends the most recent segment replaces it.
  if (!segments_.empty() && segments_.back().end == start &&
      end - segments_.back().start <= segment_bytes_) {
    segments_.back().end = end;
    return;
  }
  segments_.push_back({start, end});
  while (segments_.size() > max_segments_) segments_.pop_front();
}

void HddReadBuffer::invalidate(uint64_t offset, uint64_t len) {
  const uint64_t end = offset + len;
  std::erase_if(segments_, [&](const Range& r) { return r.start < end && offset < r.end; });
  if (stream_ && stream_->seg_start < end && offset < stream_->limit) stream_.reset();
}

void HddReadBuffer::start_stream(uint64_t seg_start, uint64_t pos, Nanos t0, uint64_t limit) {
  stream_ = Stream{std::min(seg_start, pos), pos, std::max(pos, limit), t0};
}

void HddReadBuffer::stop_stream(Nanos t) {
  if (!stream_) return;
  const uint64_t end = stream_pos(t);
  const uint64_t start = stream_->seg_start;
  stream_.reset();
  add(start, end);
}

std::optional<Nanos> HddReadBuffer::continue_stream(uint64_t offset, uint64_t end,
                                                    Nanos t) const {
  if (!stream_) return std::nullopt;
  const uint64_t pos = stream_pos(t);
  if (offset < stream_->seg_start || offset > pos) return std::nullopt;
  if (end <= pos) return t;  // already buffered
  if (pos >= stream_->limit) return std::nullopt;  // the head stopped: no longer in position
  const double ns = geo_.transfer_ns(stream_->pos0, end - stream_->pos0);
  return stream_->t0 + Nanos(static_cast<int64_t>(std::ceil(ns)));
}

}  // namespace tiercache
