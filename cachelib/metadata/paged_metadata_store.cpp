#include "cachelib/metadata/paged_metadata_store.h"

#include <algorithm>
#include <cassert>

#include "cachelib/metadata/metadata_page.h"
#include "cachelib/metadata/superblock_writer.h"

namespace tiercache {
namespace {

// Pages per persist round: the superblock lists them all.
constexpr size_t kChunk = format::sb::kMaxRoundPages;

}  // namespace

PagedMetadataStore::PagedMetadataStore(Device& ssd, State s)
    : ssd_(ssd),
      layout_(s.sb.layout),
      uuid_(s.sb.uuid),
      sb_(s.sb),
      sb_copy_(s.sb_copy),
      loaded_(layout_, std::move(s.images)),
      page_seq_(std::move(s.page_seq)),
      page_slot_(std::move(s.page_slot)),
      next_round_(std::max({s.sb.intent_round, s.sb.committed_round, s.newest_journal_round}) + 1),
      dirty_pages_(layout_.page_count),
      journal_(layout_, s.journal_in_use, s.options),
      // A journal epoch's rounds run from its start without a gap (a gap reads as damage at load),
      // so a cache whose next round is not the start checkpoints first.
      pages_pending_(s.journal_in_use || !s.dirty_pages.empty() ||
                     next_round_ != s.sb.journal_start_round) {
  info_.uuid = sb_.uuid;
  info_.version = sb_.version;
  info_.core = sb_.core;
  info_.line_size = layout_.line_size;
  info_.mode = sb_.mode;
  info_.was_clean_shutdown = sb_.clean_shutdown;
  info_.line_count = layout_.line_count;
  info_.data_offset = layout_.data_offset;
  info_.policies = sb_.policies;
  info_.shard_stripe_lines = sb_.shard_stripe_lines;
  for (uint64_t page : s.dirty_pages) dirty_pages_.mark(page);
  redo_ = std::move(s.redo_pages);
  std::sort(redo_.begin(), redo_.end());
}

LineRecord PagedMetadataStore::loaded_record(uint64_t line) const { return loaded_.record(line); }

void PagedMetadataStore::for_each_loaded(
    const std::function<void(uint64_t, const LineRecord&)>& fn) const {
  // A page never written by a page round and with no journal entry replayed into it: all free.
  loaded_.for_each_in_use(
      [this](uint64_t page) { return page_seq_[page] != 0 || dirty_pages_.dirty(page); }, fn);
}

void PagedMetadataStore::release_loaded() {
  std::lock_guard lock(mu_);
  if (staged_.empty()) loaded_.release();
}

void PagedMetadataStore::set_record_source(RecordSource source) {
  std::lock_guard lock(mu_);
  source_ = std::move(source);
}

void PagedMetadataStore::mark_changed(uint64_t line) {
  assert(line < layout_.line_count);
  std::lock_guard lock(mu_);
  dirty_pages_.mark(line / layout_.records_per_page);
  if (source_) {
    journal_.note_changed(line);
  } else {
    pages_pending_ = true;
  }
}

void PagedMetadataStore::set_record(uint64_t line, const LineRecord& record) {
  assert(line < layout_.line_count);
  assert((record.valid >> layout_.sectors_per_line).none() && (record.dirty & ~record.valid).none());
  assert(record.in_use() || record.valid.none());
  std::lock_guard lock(mu_);
  assert(!source_ && "set_record is for stores without a record source");
  if (staged_.empty()) {
    staged_.resize(layout_.line_count);
    for (uint64_t l = 0; l < layout_.line_count && !loaded_.empty(); ++l) {
      staged_[l] = loaded_record(l);
    }
  }
  // A free line is stored without bits whatever the caller left in them, so it always loads.
  staged_[line] = record.in_use() ? record : LineRecord{};
  dirty_pages_.mark(line / layout_.records_per_page);
  pages_pending_ = true;
}

void PagedMetadataStore::page_records(uint64_t page, std::span<LineRecord> out) {
  const uint64_t first = page * layout_.records_per_page;
  RecordSource source;
  {
    std::lock_guard lock(mu_);
    if (!staged_.empty()) {
      std::copy_n(staged_.begin() + first, out.size(), out.begin());
      return;
    }
    if (!source_) {
      for (size_t i = 0; i < out.size(); ++i) out[i] = loaded_record(first + i);
      return;
    }
    source = source_;
  }
  source(first, out);  // takes the engine's locks: never under mu_
}

void PagedMetadataStore::mark_in_use(IoCallback done) {
  SuperblockChange change;
  change.clean_shutdown = false;  // neither copy may keep claiming a clean shutdown
  enqueue_superblock_change(std::move(change), std::move(done));
}

void PagedMetadataStore::persist(IoCallback done) {
  Op op;
  op.waiters.push_back({EventLoop::current(), std::move(done)});
  enqueue(std::move(op), true);
}

void PagedMetadataStore::set_mode(CacheMode mode, IoCallback done) {
  SuperblockChange change;
  change.mode = mode;
  enqueue_superblock_change(std::move(change), std::move(done));
}

void PagedMetadataStore::set_policies(const PolicyOptions& policies, IoCallback done) {
  SuperblockChange change;
  change.policies = policies;
  enqueue_superblock_change(std::move(change), std::move(done));
}

// A state change outside persist rounds: both copies hold it at rest.
void PagedMetadataStore::enqueue_superblock_change(SuperblockChange change, IoCallback done) {
  Op op;
  op.is_persist = false;
  op.change = std::move(change);
  op.change.mirror = true;
  op.waiters.push_back({EventLoop::current(), std::move(done)});
  enqueue(std::move(op), false);
}

void PagedMetadataStore::close_clean(IoCallback done) {
  Op op;
  op.then_mark_clean = true;
  op.waiters.push_back({EventLoop::current(), std::move(done)});
  enqueue(std::move(op), false);
}

void PagedMetadataStore::enqueue(Op op, bool join_pending_persist) {
  assert(op.waiters.front().loop != nullptr && "metadata calls must come from an event loop");
  bool start = false;
  {
    std::lock_guard lock(mu_);
    // The front op is running once started: it has already taken its snapshot, so callers
    // only join an op that has not started yet.
    bool back_pending = !queue_.empty() && !(running_ && queue_.size() == 1);
    if (join_pending_persist && back_pending && queue_.back().is_persist &&
        !queue_.back().then_mark_clean) {
      queue_.back().waiters.push_back(std::move(op.waiters.front()));
    } else {
      queue_.push_back(std::move(op));
    }
    start = !running_;
    running_ = true;
  }
  if (start) run_front();
}

void PagedMetadataStore::run_front() {
  bool is_persist, then_mark_clean;
  SuperblockChange change;
  {
    std::lock_guard lock(mu_);
    const Op& op = queue_.front();
    is_persist = op.is_persist;
    then_mark_clean = op.then_mark_clean;
    change = op.change;
  }
  if (is_persist) return run_persist(then_mark_clean);
  write_superblock(change, [this](Status s) { finish_front(std::move(s)); });
}

void PagedMetadataStore::finish_front(Status status) {
  std::vector<Waiter> waiters;
  bool more = false;
  {
    std::lock_guard lock(mu_);
    waiters = std::move(queue_.front().waiters);
    queue_.pop_front();
    more = !queue_.empty();
    running_ = more;
  }
  if (more) run_front();
  // Last: a waiter may destroy the store once its operation is done.
  notify(std::move(waiters), status);
}

void PagedMetadataStore::notify(std::vector<Waiter> waiters, const Status& status) {
  EventLoop* here = EventLoop::current();
  for (Waiter& w : waiters) {
    if (w.loop == here) {
      w.cb(status);
    } else {
      w.loop->post([cb = std::move(w.cb), status] { cb(status); });
    }
  }
}

std::shared_ptr<PagedMetadataStore::Round> PagedMetadataStore::take_round() {
  auto r = std::make_shared<Round>();
  {
    std::lock_guard lock(mu_);
    r->pages = dirty_pages_.take_all();
    if (!r->pages.empty()) ++counters_.checkpoints;
    // Redo pages first (they fit in the first round), then each round's pages ascending.
    auto rest = std::stable_partition(r->pages.begin(), r->pages.end(), [this](uint64_t p) {
      return std::binary_search(redo_.begin(), redo_.end(), p);
    });
    std::sort(r->pages.begin(), rest);
    std::sort(rest, r->pages.end());
    for (size_t at = 0; at < r->pages.size(); at += kChunk) {
      std::sort(r->pages.begin() + at, r->pages.begin() + std::min(r->pages.size(), at + kChunk));
    }
    r->mark_unclean_first = sb_.clean_shutdown && !r->pages.empty();
    // The pages hold every change so far: the journal's lines and anything it did not cover.
    journal_.clear_changes();
    pages_pending_ = false;
    r->ends_epoch = source_ && staged_.empty();
    r->first_round = next_round_;
    next_round_ += r->chunks();
    if (r->ends_epoch) r->start_after = next_round_;
    assign_slots_locked(*r);
  }
  encode_round(*r);
  return r;
}

void PagedMetadataStore::assign_slots_locked(Round& r) const {
  r.slots.resize(r.pages.size());
  for (size_t i = 0; i < r.pages.size(); ++i) r.slots[i] = uint8_t(1 - page_slot_[r.pages[i]]);
}

// Rounds run one at a time, so the snapshot can be taken without the lock: a line changed
// meanwhile marks its page again and the next round writes it too.
void PagedMetadataStore::encode_round(Round& r) {
  r.encode(layout_, uuid_, [this](uint64_t page, std::span<LineRecord> out) {
    page_records(page, out);
  });
}

// A step while the journal is filling up: the pages that hold its oldest rounds' changes, as
// one page round whose marker keeps the epoch's rounds consecutive and whose commit moves the
// epoch's start to the oldest round still needed.
std::shared_ptr<PagedMetadataStore::Round> PagedMetadataStore::take_step_locked(size_t done) {
  if (!source_ || !staged_.empty() || pages_pending_ || !redo_.empty() ||
      done >= journal_.steps_wanted() ||
      !dirty_pages_.oldest_round()) {
    return nullptr;
  }
  auto r = std::make_shared<Round>();
  r->first_round = next_round_;
  r->marker = journal_.take_marker(r->first_round);
  if (!r->marker) return nullptr;  // full: the next persist checkpoints
  ++next_round_;
  r->pages = dirty_pages_.take_oldest(Round::StepPages(layout_));
  r->start_after = dirty_pages_.oldest_round().value_or(next_round_);
  assign_slots_locked(*r);
  ++counters_.steps;
  return r;
}

void PagedMetadataStore::run_steps(size_t done, IoCallback finish) {
  std::shared_ptr<Round> step;
  {
    std::lock_guard lock(mu_);
    step = take_step_locked(done);
  }
  if (!step) return finish(Status::Ok());
  encode_round(*step);
  write_chunks(step, [this, done, finish = std::move(finish)](Status s) mutable {
    if (!s.ok()) return finish(std::move(s));
    run_steps(done + 1, std::move(finish));
  });
}

void PagedMetadataStore::run_persist(bool then_mark_clean) {
  std::shared_ptr<RecordJournal::Round> journal_round;
  bool only_flush = false, mark_unclean_first = false;
  {
    std::lock_guard lock(mu_);
    journal_round = take_journal_round_locked(then_mark_clean);
    // Every dirty page's changes are in the journal already: nothing to write.
    only_flush = !journal_round && !then_mark_clean && source_ && staged_.empty() &&
                 !pages_pending_ && !journal_.has_changes();
    mark_unclean_first = sb_.clean_shutdown;
  }
  if (journal_round) return run_journal_round(std::move(journal_round), mark_unclean_first);
  if (only_flush) return ssd_.flush([this](Status s) { finish_front(std::move(s)); });
  std::shared_ptr<Round> round = take_round();
  IoCallback after_pages = [this, round, then_mark_clean](Status s) {
    if (!s.ok() || !then_mark_clean) return finish_front(std::move(s));
    write_clean_flag(true, [this](Status s2) { finish_front(std::move(s2)); });
  };
  if (round->pages.empty()) return end_empty_checkpoint(*round, std::move(after_pages));
  if (!round->mark_unclean_first) return write_chunks(round, std::move(after_pages));
  write_clean_flag(false, [this, round, after = std::move(after_pages)](Status s) mutable {
    if (!s.ok()) {
      end_chunk(*round, s);
      return after(std::move(s));
    }
    write_chunks(round, std::move(after));
  });
}

// A checkpoint with no page to write is a flush; but if rounds were used since the journal's
// epoch began (a failed round), the epoch restarts at the next round, so it stays gapless.
void PagedMetadataStore::end_empty_checkpoint(const Round& round, IoCallback after) {
  SuperblockChange start;
  {
    std::lock_guard lock(mu_);
    if (round.ends_epoch && sb_.journal_start_round != next_round_) {
      start.journal_start_round = next_round_;
    }
  }
  if (!start.journal_start_round) return ssd_.flush(std::move(after));
  start.mirror = true;
  write_superblock(start, [this, after = std::move(after)](Status s) mutable {
    if (s.ok()) {
      std::lock_guard lock(mu_);
      journal_.start_epoch();
    }
    after(std::move(s));
  });
}

// Before records change after a clean close, the superblock stops claiming a clean shutdown.
void PagedMetadataStore::write_clean_flag(bool clean, IoCallback then) {
  SuperblockChange change;
  change.clean_shutdown = clean;
  change.mirror = true;
  write_superblock(std::move(change), std::move(then));
}

std::shared_ptr<RecordJournal::Round> PagedMetadataStore::take_journal_round_locked(
    bool then_mark_clean) {
  // A clean close leaves an empty journal (a checkpoint), so a clean open reads pages only.
  if (then_mark_clean || !source_ || !staged_.empty() || pages_pending_) return nullptr;
  std::unique_ptr<RecordJournal::Round> r = journal_.take(next_round_);
  if (!r) return nullptr;  // nothing changed, or it does not fit: a checkpoint
  ++next_round_;
  ++counters_.journal_rounds;
  for (uint64_t line : r->lines) dirty_pages_.journaled(line / layout_.records_per_page, r->round);
  return r;
}

// A journal round: a flush (which makes the data the new records describe durable), the blocks,
// a flush. A failed round may have left some of its blocks: nothing more is appended to this
// epoch (a later round after a partial one would read as damage), the next persist checkpoints.
void PagedMetadataStore::run_journal_round(std::shared_ptr<RecordJournal::Round> round,
                                           bool mark_unclean_first) {
  journal_.encode(*round, uuid_, source_);
  std::shared_ptr<Round> step;
  {
    std::lock_guard lock(mu_);
    step = take_step_locked(0);
  }
  if (step) {
    // The round rides with the first step: the step's intent flush makes the data the records
    // describe durable, its page flush the blocks. Three flushes for both instead of five. A
    // crash may leave the step's pages and not the round: they hold the round's changes anyway.
    step->riding = round;
    encode_round(*step);
  }
  auto fail_or_finish = [this](Status s) {
    if (!s.ok()) {
      std::lock_guard lock(mu_);
      pages_pending_ = true;
    }
    finish_front(std::move(s));
  };
  auto write = [this, round, step, fail_or_finish](Status s) mutable {
    if (!s.ok()) return fail_or_finish(std::move(s));
    if (!step) return journal_.write(ssd_, std::move(round), std::move(fail_or_finish));
    write_chunks(step, [this, fail_or_finish](Status s2) mutable {
      if (!s2.ok()) return fail_or_finish(std::move(s2));
      run_steps(1, std::move(fail_or_finish));
    });
  };
  if (!mark_unclean_first) return write(Status::Ok());
  write_clean_flag(false, std::move(write));
}

// One round per chunk: superblock with the round's intent, flush (which also makes the data the
// new records describe durable), page writes, flush, a step's marker and the superblock with the
// round committed, flush.
void PagedMetadataStore::write_chunks(std::shared_ptr<Round> round, IoCallback done) {
  if (round->chunk == round->chunks()) return done(Status::Ok());
  SuperblockChange intent;
  intent.intent = std::make_pair(
      round->round(), std::vector<uint64_t>(round->pages.begin() + round->begin(),
                                            round->pages.begin() + round->end()));
  write_superblock(intent, [this, round, done = std::move(done)](Status s) mutable {
    if (!s.ok()) {
      end_chunk(*round, s);
      return done(std::move(s));
    }
    round->write_chunk(ssd_, layout_, [this, round, done = std::move(done)](Status s2) mutable {
      if (!s2.ok()) {
        end_chunk(*round, s2);
        return done(std::move(s2));
      }
      round->write_marker(ssd_, layout_, [this, round, done = std::move(done)](Status s3) mutable {
        if (!s3.ok()) {
          end_chunk(*round, s3);
          return done(std::move(s3));
        }
        SuperblockChange commit;
        commit.committed_round = round->round();
        if (round->last_chunk()) commit.journal_start_round = round->start_after;
        write_superblock(commit, [this, round, done = std::move(done)](Status s4) mutable {
          end_chunk(*round, s4);
          if (!s4.ok()) return done(std::move(s4));
          ++round->chunk;
          write_chunks(round, std::move(done));
        });
      });
    });
  });
}

// Records the current chunk as committed, or on failure marks it and every later chunk changed
// again: retried by the next persist, into the same slots, under a new round.
void PagedMetadataStore::end_chunk(const Round& round, const Status& status) {
  std::lock_guard lock(mu_);
  const auto first = round.pages.begin() + round.begin(), last = round.pages.begin() + round.end();
  if (!status.ok()) {
    // The chunk's slots may hold its round (and any older redo page is in it: redo pages go in
    // the first chunk).
    pages_pending_ = true;
    redo_.assign(first, last);
    for (auto it = first; it != round.pages.end(); ++it) dirty_pages_.mark(*it);
    return;
  }
  // The chunk's pages' uncommitted slots are overwritten.
  std::erase_if(redo_, [&](uint64_t p) { return std::binary_search(first, last, p); });
  for (size_t i = round.begin(); i < round.end(); ++i) {
    page_slot_[round.pages[i]] = round.slots[i];
    page_seq_[round.pages[i]] = round.round();
  }
  if (!round.last_chunk()) return;
  if (round.ends_epoch) {
    journal_.start_epoch();
  } else if (round.start_after) {
    journal_.release_before(*round.start_after);
  }
}

void PagedMetadataStore::write_superblock(SuperblockChange change, IoCallback done) {
  Superblock current;
  {
    std::lock_guard lock(mu_);
    current = sb_;
  }
  const bool mirror = change.mirror;
  write_superblock_copy(std::move(change).applied_to(std::move(current)), mirror, std::move(done));
}

// Writes `next` (sequence + 1) to the copy that does not hold sb_, flushes, and makes it sb_.
// With `mirror`, then does the same to the other copy, so both copies hold the new state at rest.
void PagedMetadataStore::write_superblock_copy(Superblock next, bool mirror, IoCallback done) {
  uint32_t target;
  {
    std::lock_guard lock(mu_);
    next.sequence = sb_.sequence + 1;
    target = 1 - sb_copy_;
  }
  WriteSuperblockCopy(ssd_, next, target,
                      [this, next, target, mirror, done = std::move(done)](Status s) mutable {
                        if (!s.ok()) return done(std::move(s));
                        {
                          std::lock_guard lock(mu_);
                          sb_ = next;
                          sb_copy_ = target;
                          info_.mode = next.mode;
                          info_.version = next.version;
                        }
                        if (!mirror) return done(Status::Ok());
                        write_superblock_copy(std::move(next), false, std::move(done));
                      });
}

}  // namespace tiercache
