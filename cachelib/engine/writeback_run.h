// WritebackRun: a run of adjacent dirty sectors copied SSD -> core as one write. The cleaner adds
// pieces (one dirty run of one cache line each, in core order, each continuing the last); Start()
// reads every piece from the SSD into one aligned buffer, then writes the pieces whose reads
// succeeded to the core, one write per unbroken stretch (one write when no read failed). Each
// piece's callback runs exactly once: after its core write completed, or at once if its SSD read
// failed. Shared ownership keeps the run alive while its I/O is in flight; the cleaner's loop only.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cachelib/device/device.h"

namespace tiercache {

class Engine;

class WritebackRun : public std::enable_shared_from_this<WritebackRun> {
 public:
  // An empty run whose first piece goes to the core at byte `core_offset`.
  WritebackRun(Engine& engine, uint64_t core_offset);

  // True if `sectors` sectors at core byte `core_offset` continue the run (they start where it
  // ends) and the run stays within `max_bytes`. A run always takes its first piece, so a line's
  // dirty run is never split.
  bool continues(uint64_t core_offset, uint32_t sectors, uint64_t max_bytes) const;
  // Adds sectors [first, first + count) of SSD line `line_id`, at the run's end on the core.
  // `done` gets the piece's status: its SSD read's if that failed, else its core write's.
  void add(uint32_t line_id, uint32_t first, uint32_t count, IoCallback done);
  uint64_t bytes() const { return bytes_; }

  // Issues the SSD reads; the core writes follow once all of them completed.
  static void Start(std::shared_ptr<WritebackRun> run);

 private:
  struct Piece {
    uint32_t line_id, first, count;
    uint64_t at;  // byte offset in the run
    IoCallback done;
    Status read;
  };
  struct BufferFree {
    void operator()(std::byte* p) const;
  };

  void read_done();
  // Writes pieces [begin, end) (all read) to the core as one write.
  void write_stretch(size_t begin, size_t end);

  Engine& engine_;
  const uint64_t core_offset_;
  uint64_t bytes_ = 0;
  std::vector<Piece> pieces_;
  std::unique_ptr<std::byte, BufferFree> buf_;
  size_t reads_pending_ = 0;
};

}  // namespace tiercache
