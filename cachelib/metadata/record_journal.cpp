#include "cachelib/metadata/record_journal.h"

#include <algorithm>
#include <functional>

#include "cachelib/metadata/bounded_io.h"
#include "cachelib/metadata/journal_block.h"

namespace tiercache {
namespace {

constexpr size_t kWriteWindow = 32;  // block writes in flight, as for page writes

}  // namespace

RecordJournal::RecordJournal(const format::Layout& layout, bool in_use,
                             const StoreOptions& options)
    : layout_(layout),
      capacity_entries_(layout.journal_blocks * layout.journal_entries_per_block),
      steps_(layout.page_count > options.steps_above_pages),
      one_step_above_(options.one_step_above),
      four_steps_above_(options.four_steps_above),
      used_(in_use ? layout.journal_blocks : 0) {}

void RecordJournal::note_changed(uint64_t line) {
  if (overflowed_) return;
  // Duplicates count too: a line changed often between persists is cheap to sort out later, and
  // the bound keeps this list within the journal's size whatever the workload.
  if (lines_.size() >= capacity_entries_) {
    overflowed_ = true;
    std::vector<uint64_t>().swap(lines_);
    return;
  }
  lines_.push_back(line);
}

std::unique_ptr<RecordJournal::Round> RecordJournal::take(uint64_t round) {
  if (overflowed_ || lines_.empty()) return nullptr;
  std::sort(lines_.begin(), lines_.end());
  lines_.erase(std::unique(lines_.begin(), lines_.end()), lines_.end());
  const uint64_t per_block = layout_.journal_entries_per_block;
  const uint64_t blocks = (lines_.size() + per_block - 1) / per_block;
  if (used_ + blocks + 1 > layout_.journal_blocks) return nullptr;
  auto r = place(round, blocks);
  r->lines.swap(lines_);
  return r;
}

std::unique_ptr<RecordJournal::Round> RecordJournal::take_marker(uint64_t round) {
  if (used_ + 1 > layout_.journal_blocks) return nullptr;
  return place(round, 1);
}

std::unique_ptr<RecordJournal::Round> RecordJournal::place(uint64_t round, uint64_t blocks) {
  auto r = std::make_unique<Round>();
  r->round = round;
  r->first_block = head_;
  r->buf.assign(blocks * format::kBlockSize, std::byte{0});
  head_ = (head_ + blocks) % layout_.journal_blocks;
  used_ += blocks;
  live_.push_back({round, blocks});
  return r;
}

// One step per persist keeps up with a steady load; four catch up with the first pass over an
// empty journal (every page is changed in its first rounds) and with bursts, and bound what one
// FLUSH waits for. Steps start late because a page is rewritten once per pass of the journal
// over it: the fuller the journal runs, the fewer page writes (StoreOptions has the thresholds).
// If they fall behind, the journal fills and a checkpoint catches up.
// A region of at most four steps gains nothing from them: every round touches most of its pages,
// so the journal's start moves only once four steps have written them all, a checkpoint written
// early; letting the journal fill writes the same pages a quarter less often.
size_t RecordJournal::steps_wanted() const {
  const uint64_t capacity = layout_.journal_blocks;
  if (!steps_ || !one_step_above_.exceeded_by(used_, capacity)) return 0;
  return four_steps_above_.exceeded_by(used_, capacity) ? 4 : 1;
}

void RecordJournal::start_epoch() {
  used_ = 0;
  head_ = 0;
  live_.clear();
}

void RecordJournal::release_before(uint64_t round) {
  while (!live_.empty() && live_.front().round < round) {
    used_ -= live_.front().blocks;
    live_.pop_front();
  }
}

void RecordJournal::clear_changes() {
  lines_.clear();
  overflowed_ = false;
}

void RecordJournal::encode(Round& r, const std::array<uint8_t, 16>& uuid,
                           const RecordSource& source) const {
  const uint32_t per_block = layout_.journal_entries_per_block;
  const uint32_t blocks = static_cast<uint32_t>(r.blocks());
  LineRecord rec;
  for (size_t i = 0; i < r.lines.size(); ++i) {
    source(r.lines[i], std::span(&rec, 1));
    if (!rec.in_use()) rec = LineRecord{};  // as a page stores a free line: no bits
    auto block = std::span(r.buf).subspan(i / per_block * format::kBlockSize, format::kBlockSize);
    PutJournalEntry(layout_, block, static_cast<uint32_t>(i % per_block), r.lines[i], rec);
  }
  for (uint32_t b = 0; b < blocks; ++b) {
    const size_t first = size_t{b} * per_block;
    const uint32_t count = static_cast<uint32_t>(std::min<size_t>(per_block, r.lines.size() - first));
    SealJournalBlock({r.round, uuid, b, blocks, count},
                     std::span(r.buf).subspan(b * format::kBlockSize, format::kBlockSize));
  }
}

void RecordJournal::write(Device& ssd, std::shared_ptr<const Round> round, IoCallback done) const {
  ssd.flush([this, &ssd, round, done = std::move(done)](Status s) mutable {
    if (!s.ok()) return done(std::move(s));
    auto submit = [this, &ssd, round](size_t i, IoCallback cb) {
      auto block = std::span<const std::byte>(round->buf)
                       .subspan(i * format::kBlockSize, format::kBlockSize);
      ssd.write(layout_.journal_block_offset(round->position(i, layout_)), block, {}, std::move(cb));
    };
    RunBounded(round->blocks(), kWriteWindow, std::move(submit),
               [&ssd, done = std::move(done)](Status s2) mutable {
                 if (!s2.ok()) return done(std::move(s2));
                 ssd.flush(std::move(done));
               });
  });
}

}  // namespace tiercache
