#include "cachelib/engine/writeback_run.h"

#include <cstdlib>

#include "cachelib/engine/engine.h"
#include "cachelib/engine/io_paths.h"
#include "cachelib/engine/ssd_errors.h"

namespace tiercache {

void WritebackRun::BufferFree::operator()(std::byte* p) const { std::free(p); }

WritebackRun::WritebackRun(Engine& engine, uint64_t core_offset)
    : engine_(engine), core_offset_(core_offset) {}

bool WritebackRun::continues(uint64_t core_offset, uint32_t sectors, uint64_t max_bytes) const {
  return core_offset == core_offset_ + bytes_ &&
         bytes_ + uint64_t(sectors) * kSectorSize <= max_bytes;
}

void WritebackRun::add(uint32_t line_id, uint32_t first, uint32_t count, IoCallback done) {
  pieces_.push_back(Piece{.line_id = line_id, .first = first, .count = count, .at = bytes_,
                          .done = std::move(done), .read = Status::Ok()});
  bytes_ += uint64_t(count) * kSectorSize;
}

void WritebackRun::Start(std::shared_ptr<WritebackRun> run) {
  WritebackRun& r = *run;
  r.buf_.reset(static_cast<std::byte*>(std::aligned_alloc(kSectorSize, r.bytes_)));
  // Counted before the first read is issued: an early completion cannot start the writes.
  r.reads_pending_ = r.pieces_.size();
  for (size_t i = 0; i < r.pieces_.size(); ++i) {
    Piece& p = r.pieces_[i];
    SsdReadSectors(r.engine_, p.line_id, p.first, p.count, r.buf_.get() + p.at,
                   [run, i](Status s) {
                     if (!s.ok()) {
                       NoteSsdError(run->engine_, SsdErrorKind::kRead, s);
                       run->pieces_[i].read = std::move(s);
                     }
                     run->read_done();
                   });
  }
}

void WritebackRun::read_done() {
  if (--reads_pending_ > 0) return;
  // A failed read fails only its piece: the pieces around it still go to the core.
  size_t begin = 0;
  for (size_t i = 0; i <= pieces_.size(); ++i) {
    if (i < pieces_.size() && pieces_[i].read.ok()) continue;
    if (begin < i) write_stretch(begin, i);
    if (i < pieces_.size()) std::exchange(pieces_[i].done, nullptr)(pieces_[i].read);
    begin = i + 1;
  }
}

void WritebackRun::write_stretch(size_t begin, size_t end) {
  Engine& e = engine_;
  const uint64_t at = pieces_[begin].at;
  const uint64_t bytes = pieces_[end - 1].at + uint64_t(pieces_[end - 1].count) * kSectorSize - at;
  e.core.write(core_offset_ + at, std::span<const std::byte>(buf_.get() + at, bytes), {},
               [self = shared_from_this(), begin, end, bytes](Status s) {
                 // Counted as done: a full core's retries must not look like data written.
                 EngineCounters& c = self->engine_.counters;
                 if (s.ok()) {
                   EngineCounters::add(c.cleaner_writes);
                   EngineCounters::add(c.bytes_written_core, bytes);
                 } else {
                   EngineCounters::add(c.cleaner_write_errors);
                 }
                 for (size_t i = begin; i < end; ++i) {
                   std::exchange(self->pieces_[i].done, nullptr)(s);
                 }
               });
}

}  // namespace tiercache
