// SectorModel: what each 512-byte sector of a block device may hold, for crash tests. A read must
// return the newest value submitted before it (after a TRIM: any value it could return before, or
// zeros); after a crash, any value from its last durable write on. Values: 0 means zeros, any
// other v means testing::Pattern(v, offset, ...). Test-only; not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tiercache::testing {

class SectorModel {
 public:
  static constexpr uint64_t kSector = 512;
  using Covered = std::vector<uint64_t>;            // per sector: newest acknowledged request
  using Expected = std::vector<std::vector<uint64_t>>;  // per sector: values a read may return

  explicit SectorModel(uint64_t bytes);

  // A write (value != 0) or WRITE_ZEROES (value 0) submitted now; returns its sequence number.
  uint64_t submit_write(uint64_t offset, uint64_t length, uint64_t value);
  // A TRIM submitted now: from now on (flushes included) the range may read anything it could
  // read before, or zeros (docs/io-paths.md: TRIM contents are unspecified, partial 4 KiB
  // sectors are left as they are, whole ones read from the discarded core).
  uint64_t submit_trim(uint64_t offset, uint64_t length);
  // Request `seq` over the range completed successfully; `durable`: a FUA write, or any write,
  // TRIM or WRITE_ZEROES of a cache that commits before it acknowledges.
  void acked(uint64_t seq, uint64_t offset, uint64_t length, bool durable);
  // A FLUSH submitted now covers every request acknowledged so far; pass what this returns to
  // flushed() when the FLUSH completes successfully.
  Covered flush_submitted() const { return acked_; }
  void flushed(const Covered& covered);

  // What a read submitted now may return, per sector of the range.
  Expected expect_read(uint64_t offset, uint64_t length) const;
  // "" if `got`, read at `offset`, matches `expect`; else what differs.
  std::string check_read(uint64_t offset, std::span<const std::byte> got,
                         const Expected& expect) const;
  // "" if every sector of `got` (read at `offset` after a crash) holds a value from its last
  // durable write on; else the first sector that does not, and which write its content is from.
  std::string check_after_crash(uint64_t offset, std::span<const std::byte> got) const;
  // A TRIM is among what a crash may have left in the sector: its content is unspecified.
  bool maybe_trimmed(uint64_t sector) const;
  // After a crash whose aftermath passed check_after_crash(): what each sector now holds (the
  // device image `got`, from offset 0) is its durable value; a sector a TRIM may have left
  // unspecified keeps every value it could hold.
  void settle(std::span<const std::byte> got);

  uint64_t sectors() const { return acked_.size(); }

 private:
  struct Entry {
    uint64_t seq;
    uint64_t value;
    bool trim;  // zeros from a TRIM, or a value a TRIM kept possible
  };
  void make_durable(uint64_t sector, uint64_t seq);
  std::string describe(uint64_t sector, std::span<const std::byte> got) const;

  uint64_t next_seq_ = 1;
  std::vector<std::vector<Entry>> after_crash_;     // per sector, oldest first
  std::vector<std::vector<uint64_t>> now_;          // per sector: what a read may return now
  Covered acked_;
  std::vector<uint64_t> durable_;                    // per sector: newest durable request
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> history_;  // (seq, value), for messages
};

// Whether `got` (one sector at byte `offset`) holds `value`.
bool SectorHolds(uint64_t value, uint64_t offset, std::span<const std::byte> got);

}  // namespace tiercache::testing
