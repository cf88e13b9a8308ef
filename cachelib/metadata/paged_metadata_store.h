// PagedMetadataStore: the MetadataStore that OpenTask builds. Keeps the loaded record bytes until
// release_loaded(), then only per-page bookkeeping. A persist appends the changed lines' records
// to the record journal (flush, journal blocks, flush); while the journal is over three quarters
// full it then writes a step: the pages holding its oldest rounds' changes, encoded from the record source
// (the engine's live state), as one page round (intent in the superblock, pages and a marker
// block, commit in the superblock moving the journal's start), which frees those rounds. When the
// changes do not fit, and on a clean close, the persist is a full checkpoint: every changed page,
// in rounds of at most 256 pages, the last commit starting a new journal epoch
// (docs/on-disk-format.md). Runs persists, superblock updates and clean closes one at a time
// through an operation queue; concurrent persist() callers that arrive while one runs are batched
// into the next persist. Does not own the SSD, which must outlive it; no operation may be in
// flight when it is destroyed. Thread-safe (one mutex guards staged state and the queue; device
// I/O is never submitted under it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "cachelib/common/event_loop.h"
#include "cachelib/metadata/dirty_page_table.h"
#include "cachelib/metadata/loaded_records.h"
#include "cachelib/metadata/metadata_store.h"
#include "cachelib/metadata/page_round.h"
#include "cachelib/metadata/record_journal.h"
#include "cachelib/metadata/superblock_change.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {

class PagedMetadataStore final : public MetadataStore {
 public:
  // What a load hands over.
  struct State {
    Superblock sb;                      // as found on the SSD
    uint32_t sb_copy = 0;               // the copy `sb` came from
    std::vector<std::byte> images;      // page_count pages of records_per_page * record_size bytes
    std::vector<uint64_t> page_seq;     // round of each page's committed slot (0: never written)
    std::vector<uint8_t> page_slot;     // index of each page's durable slot
    std::vector<uint64_t> dirty_pages;  // pages whose image differs from the durable slot
    std::vector<uint64_t> redo_pages;   // of dirty_pages: other slot holds an uncommitted round
    bool journal_in_use = false;        // the journal holds blocks of the current epoch
    uint64_t newest_journal_round = 0;  // of any journal block read (rounds continue above it)
    StoreOptions options;
  };

  PagedMetadataStore(Device& ssd, State state);

  // Writes the superblock with clean_shutdown = false and flushes (the last step of Open).
  void mark_in_use(IoCallback done);

  LineRecord loaded_record(uint64_t line) const override;
  void for_each_loaded(
      const std::function<void(uint64_t, const LineRecord&)>& fn) const override;
  void release_loaded() override;
  void set_record_source(RecordSource source) override;
  void mark_changed(uint64_t line) override;
  void set_record(uint64_t line, const LineRecord& record) override;
  void persist(IoCallback done) override;
  void set_mode(CacheMode mode, IoCallback done) override;
  void set_policies(const PolicyOptions& policies, IoCallback done) override;
  void close_clean(IoCallback done) override;
  MetadataCounters counters() const override {
    std::lock_guard lock(mu_);
    MetadataCounters c = counters_;
    c.journal_blocks_used = journal_.used_blocks();
    c.journal_blocks = layout_.journal_blocks;
    return c;
  }

 private:
  struct Waiter {
    EventLoop* loop;
    IoCallback cb;
  };
  struct Op {
    bool is_persist = true;        // else: a superblock update
    bool then_mark_clean = false;  // persist, then clean_shutdown = true (close_clean)
    SuperblockChange change;       // superblock update
    std::vector<Waiter> waiters;
  };
  using Round = PageRound;

  void enqueue(Op op, bool join_pending_persist);
  void enqueue_superblock_change(SuperblockChange change, IoCallback done);
  void run_front();
  void finish_front(Status status);
  static void notify(std::vector<Waiter> waiters, const Status& status);

  std::shared_ptr<Round> take_round();
  // REQUIRES mu_. The next step after `done` in this persist, or nullptr if the journal needs
  // none or cannot take one.
  std::shared_ptr<Round> take_step_locked(size_t done);
  // REQUIRES mu_. Each page of `round` goes to the slot that does not hold its committed copy.
  void assign_slots_locked(Round& round) const;
  void encode_round(Round& round);
  void run_steps(size_t done, IoCallback finish);
  void run_persist(bool then_mark_clean);
  // REQUIRES mu_. The journal round this persist can be, or nullptr (a checkpoint or a flush).
  std::shared_ptr<RecordJournal::Round> take_journal_round_locked(bool then_mark_clean);
  void run_journal_round(std::shared_ptr<RecordJournal::Round> round, bool mark_unclean_first);
  void end_empty_checkpoint(const Round& round, IoCallback after);
  // Writes the superblock's clean_shutdown flag to both copies.
  void write_clean_flag(bool clean, IoCallback then);
  void write_chunks(std::shared_ptr<Round> round, IoCallback done);
  void end_chunk(const Round& round, const Status& status);
  void write_superblock(SuperblockChange change, IoCallback done);
  void write_superblock_copy(Superblock next, bool mirror, IoCallback done);

  // The records of `page` as they are now (source, staged copy or loaded image).
  void page_records(uint64_t page, std::span<LineRecord> out);

  Device& ssd_;
  const format::Layout layout_;
  const std::array<uint8_t, 16> uuid_;
  RecordSource source_;  // set once, before any persist that needs it

  mutable std::mutex mu_;
  MetadataCounters counters_;         // GUARDED_BY(mu_): the journal's fill is read on demand
  Superblock sb_;                     // GUARDED_BY(mu_): the durable superblock
  uint32_t sb_copy_;                  // GUARDED_BY(mu_): the copy holding sb_
  LoadedRecords loaded_;              // GUARDED_BY(mu_): until release_loaded()
  std::vector<LineRecord> staged_;    // GUARDED_BY(mu_): every record, once set_record() is used
  std::vector<uint64_t> page_seq_;    // GUARDED_BY(mu_): round of each page's committed slot
  std::vector<uint8_t> page_slot_;    // GUARDED_BY(mu_)
  uint64_t next_round_;               // GUARDED_BY(mu_): above every round that may be on the SSD
  DirtyPageTable dirty_pages_;        // GUARDED_BY(mu_)
  // GUARDED_BY(mu_): ascending; pages whose alternate slot may hold a round that never committed
  // (at most one round's worth). The next round writes them first, so that round's intent lists
  // them all and no such slot can outlive it and later pass for committed.
  std::vector<uint64_t> redo_;
  RecordJournal journal_;             // GUARDED_BY(mu_), but for encode()
  // GUARDED_BY(mu_): some dirty page holds a change the journal does not (a load's repairs, a
  // failed round, set_record): the next persist must be a checkpoint.
  bool pages_pending_ = false;
  std::deque<Op> queue_;              // GUARDED_BY(mu_): front is running while running_
  bool running_ = false;              // GUARDED_BY(mu_)
};

}  // namespace tiercache
