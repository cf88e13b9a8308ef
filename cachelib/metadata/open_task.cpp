#include "cachelib/metadata/open_task.h"

#include <algorithm>
#include <cassert>

#include "cachelib/common/event_loop.h"

namespace tiercache {
namespace {

// Largest read used to load the metadata region.
constexpr uint64_t kReadChunk = 4ull << 20;

}  // namespace

void OpenTask::Start(Device& ssd, const CoreIdentity& core, const StoreOptions& options,
                     MetadataStore::OpenCallback done) {
  auto task = std::make_shared<OpenTask>(ssd, core, std::move(done));
  task->state_.options = options;
  if (Status valid = options.validate(); !valid.ok()) return task->fail(std::move(valid));
  if (ssd.block_size() > format::kBlockSize || ssd.max_io_bytes() < format::kPageStride) {
    return task->fail(Status::NotSupported(
        ssd.name() + ": block size " + std::to_string(ssd.block_size()) + " or request limit " +
        std::to_string(ssd.max_io_bytes()) + " unsupported (need <= 4096 and >= 8192)"));
  }
  task->read_superblock();
}

OpenTask::OpenTask(Device& ssd, CoreIdentity core, MetadataStore::OpenCallback done)
    : ssd_(ssd), core_(std::move(core)), done_(std::move(done)) {}

void OpenTask::read_superblock() {
  buf_.assign(format::kSuperblockAreaSize, std::byte{0});
  ssd_.read(0, buf_, [self = shared_from_this()](Status s) {
    if (!s.ok()) return self->fail(std::move(s));
    Result<LoadedSuperblock> loaded = LoadSuperblock(self->buf_, self->ssd_.name());
    if (!loaded.ok()) return self->fail(loaded.status());
    const Superblock& sb = loaded->sb;
    Status checked = self->check_superblock(sb);
    if (!checked.ok()) return self->fail(std::move(checked));
    const format::Layout& l = sb.layout;
    PagedMetadataStore::State& st = self->state_;
    st.sb = sb;
    st.sb_copy = loaded->copy;
    st.images.resize(l.page_count * l.records_per_page * l.record_size);
    st.page_seq.assign(l.page_count, 0);
    st.page_slot.assign(l.page_count, 0);
    self->core_lines_ = sb.core.size / l.line_size + (sb.core.size % l.line_size != 0);
    self->free_record_.resize(l.record_size);
    EncodeRecord(l, LineRecord{}, self->free_record_);
    uint64_t chunk = std::min(self->ssd_.max_io_bytes(), kReadChunk);
    self->pages_per_chunk_ = std::max<uint64_t>(1, chunk / format::kPageStride);
    self->read_next_chunk();
  });
}

Status OpenTask::check_superblock(const Superblock& sb) const {
  if (sb.layout.required_size() > ssd_.size()) {
    return Status::InvalidArgument("cache device " + ssd_.name() + " is " +
                                   std::to_string(ssd_.size()) + " bytes but its layout needs " +
                                   std::to_string(sb.layout.required_size()) + " bytes");
  }
  if (core_.size != sb.core.size) {
    return Status::InvalidArgument("core " + core_.path + " is " + std::to_string(core_.size) +
                                   " bytes but cache " + ssd_.name() + " was created for " +
                                   std::to_string(sb.core.size) + " bytes; to resize a cached "
                                   "core, write its dirty data back with the core at its old size "
                                   "(start tiercached, run `tiercache detach`), then `tiercache "
                                   "create --force` a cache for the new size");
  }
  if (core_.fingerprint != sb.core.fingerprint) {
    // The fingerprint of a file or of a disk without a serial changes with a copy, a restore or a
    // renumbering; only an explicit, verified re-bind may accept the new one.
    return Status::InvalidArgument(
        "core " + core_.path + " is not the device cache " + ssd_.name() + " was created for (" +
        sb.core.path + "); if it holds the same data under a new identity (a copied or restored "
        "image, a renumbered device), re-bind it with `tiercache attach --cache " + ssd_.name() +
        " --core " + core_.path + "`");
  }
  return Status::Ok();
}

void OpenTask::read_next_chunk() {
  const format::Layout& l = state_.sb.layout;
  if (next_page_ == l.page_count) {
    Status s = load_intent_pages();
    if (!s.ok()) return fail(std::move(s));
    journal_ = std::make_unique<JournalReplay>(
        state_.sb, core_lines_, ssd_.name(),
        rolled_forward_ ? state_.sb.intent_round + 1 : state_.sb.journal_start_round);
    return read_journal_chunk();
  }
  uint64_t pages = std::min(pages_per_chunk_, l.page_count - next_page_);
  buf_.resize(pages * format::kPageStride);
  ssd_.read(l.slot_offset(next_page_, 0), buf_, [self = shared_from_this(), pages](Status s) {
    if (!s.ok()) return self->fail(std::move(s));
    for (uint64_t i = 0; i < pages; ++i) {
      auto bytes = std::span<const std::byte>(self->buf_)
                       .subspan(i * format::kPageStride, format::kPageStride);
      Status loaded = self->load_page(self->next_page_ + i, bytes);
      if (!loaded.ok()) return self->fail(std::move(loaded));
    }
    self->next_page_ += pages;
    self->read_next_chunk();
  });
}

void OpenTask::read_journal_chunk() {
  const format::Layout& l = state_.sb.layout;
  if (next_journal_block_ == l.journal_blocks) {
    Status s = replay_journal();
    if (s.ok()) s = check_duplicates();
    if (!s.ok()) return fail(std::move(s));
    return finish_load();
  }
  uint64_t blocks = std::min(pages_per_chunk_ * format::kSlotsPerPage,
                             l.journal_blocks - next_journal_block_);
  buf_.resize(blocks * format::kBlockSize);
  ssd_.read(l.journal_block_offset(next_journal_block_), buf_,
            [self = shared_from_this(), blocks](Status s) {
              if (!s.ok()) return self->fail(std::move(s));
              for (uint64_t i = 0; i < blocks; ++i) {
                auto bytes = std::span<const std::byte>(self->buf_)
                                 .subspan(i * format::kBlockSize, format::kBlockSize);
                Status added = self->journal_->add(self->next_journal_block_ + i, bytes);
                if (!added.ok()) return self->fail(std::move(added));
              }
              self->next_journal_block_ += blocks;
              self->read_journal_chunk();
            });
}

// The entries of the epoch's whole rounds, over the pages: an entry wins over a page slot of an
// older round (a checkpoint's page, newer than the entry, already holds it). Every page the epoch
// touched is rewritten by the first persist, a checkpoint that ends the epoch.
Status OpenTask::replay_journal() {
  const format::Layout& l = state_.sb.layout;
  const size_t rs = l.record_size;
  std::vector<uint64_t> replayed;
  Status s = journal_->replay([&](uint64_t round, const JournalEntry& e) {
    const uint64_t page = e.line / l.records_per_page;
    // Entries come in line order within a round: most repeat the page before.
    if (state_.dirty_pages.empty() || state_.dirty_pages.back() != page) {
      state_.dirty_pages.push_back(page);
    }
    if (round <= state_.page_seq[page]) return;
    EncodeRecord(l, e.record, std::span(state_.images).subspan(e.line * rs, rs));
    replayed.push_back(e.line);
  });
  TC_RETURN_IF_ERROR(s);
  state_.journal_in_use = journal_->epoch_has_blocks();
  state_.newest_journal_round = journal_->newest_round();
  journal_.reset();
  if (replayed.empty()) return Status::Ok();
  std::sort(replayed.begin(), replayed.end());
  replayed.erase(std::unique(replayed.begin(), replayed.end()), replayed.end());
  std::erase_if(mapped_, [&](const Mapped& m) {
    return std::binary_search(replayed.begin(), replayed.end(), m.line);
  });
  for (uint64_t line : replayed) {
    Result<LineRecord> rec = DecodeRecord(
        l, std::span<const std::byte>(state_.images).subspan(line * rs, rs), ~uint64_t{0});
    if (rec.ok() && rec->in_use()) mapped_.push_back({rec->core_line, rec->dirty.any(), line});
  }
  return Status::Ok();
}

Status OpenTask::load_page(uint64_t page, std::span<const std::byte> bytes) {
  const Superblock& sb = state_.sb;
  if (sb.intent_round > sb.committed_round &&
      std::binary_search(sb.intent_pages.begin(), sb.intent_pages.end(), page)) {
    intent_pages_.emplace_back(page, std::vector<std::byte>(bytes.begin(), bytes.end()));
    return Status::Ok();
  }
  return choose_and_load(page, bytes, {sb.committed_round, sb.intent_round, false});
}

// The uncommitted round counts as committed if every one of its pages was written whole (the
// crash hit between its last page and its commit): nothing is torn, and its records are as
// consistent as any committed round's. Otherwise its slots are ignored and may be torn.
Status OpenTask::load_intent_pages() {
  Superblock& sb = state_.sb;
  if (intent_pages_.empty()) return Status::Ok();
  const format::Layout& l = sb.layout;
  bool complete = true;
  for (const auto& [page, bytes] : intent_pages_) {
    complete &= HasSlotOfRound(bytes, {page, 0, sb.uuid, l.records_in_page(page)}, sb.intent_round);
  }
  if (complete) sb.committed_round = sb.intent_round;
  rolled_forward_ = complete;
  for (const auto& [page, bytes] : intent_pages_) {
    TC_RETURN_IF_ERROR(
        choose_and_load(page, bytes, {sb.committed_round, sb.intent_round, !complete}));
  }
  std::vector<std::pair<uint64_t, std::vector<std::byte>>>().swap(intent_pages_);
  return Status::Ok();
}

Status OpenTask::choose_and_load(uint64_t page, std::span<const std::byte> bytes,
                                 const RoundRule& rule) {
  const format::Layout& l = state_.sb.layout;
  SlotHeader expected{page, 0, state_.sb.uuid, l.records_in_page(page)};
  Result<SlotChoice> choice = ChooseSlot(bytes, expected, rule);
  if (!choice.ok()) return Status::Corruption(ssd_.name() + ": " + choice.status().message());
  state_.page_slot[page] = static_cast<uint8_t>(choice->slot);
  state_.page_seq[page] = choice->sequence;
  // The other slot holds a torn or uncommitted write: the next persist overwrites it, before a
  // later round could make it look committed.
  if (choice->rewrite) {
    state_.dirty_pages.push_back(page);
    state_.redo_pages.push_back(page);
  }
  if (!choice->never_written) {
    return load_records(page, bytes.subspan(choice->slot * format::kBlockSize, format::kBlockSize));
  }
  size_t page_bytes = size_t{l.records_per_page} * l.record_size;
  for (size_t r = 0; r < l.records_per_page; ++r) {
    std::copy(free_record_.begin(), free_record_.end(),
              state_.images.begin() + page * page_bytes + r * l.record_size);
  }
  return Status::Ok();
}

// Two lines holding one core line: the cleaner would write one of them over the other's data.
// One exception: a clean record and a dirty one are a write-back write that moved its block to a
// fresh line (Shard::move_to_new_line) with the old line's free record in a later, uncommitted
// chunk of the round: the dirty one is newer, the clean one is dropped (and rewritten free).
Status OpenTask::check_duplicates() {
  std::sort(mapped_.begin(), mapped_.end());
  const format::Layout& l = state_.sb.layout;
  for (size_t i = 1; i < mapped_.size(); ++i) {
    const Mapped& a = mapped_[i - 1];
    const Mapped& b = mapped_[i];
    if (a.core_line != b.core_line) continue;
    const bool third = i + 1 < mapped_.size() && mapped_[i + 1].core_line == b.core_line;
    if (a.dirty || !b.dirty || third) {
      return Status::Corruption(ssd_.name() + ": lines " + std::to_string(a.line) + " and " +
                                std::to_string(b.line) + " both map core line " +
                                std::to_string(b.core_line));
    }
    std::copy(free_record_.begin(), free_record_.end(),
              state_.images.begin() + a.line * l.record_size);
    state_.dirty_pages.push_back(a.line / l.records_per_page);
  }
  std::vector<Mapped>().swap(mapped_);
  return Status::Ok();
}

Status OpenTask::load_records(uint64_t page, std::span<const std::byte> slot) {
  const format::Layout& l = state_.sb.layout;
  const size_t rs = l.record_size;
  auto image = std::span<std::byte>(state_.images)
                   .subspan(page * l.records_per_page * rs, l.records_per_page * rs);
  uint32_t count = l.records_in_page(page);
  for (uint32_t r = 0; r < l.records_per_page; ++r) {
    if (r >= count) {  // past the last line: never written, kept free in memory
      std::copy(free_record_.begin(), free_record_.end(), image.begin() + r * rs);
      continue;
    }
    Result<LineRecord> record =
        DecodeRecord(l, slot.subspan(format::slot::kHeaderSize + r * rs, rs), core_lines_);
    if (!record.ok()) {
      return Status::Corruption(ssd_.name() + ": metadata page " + std::to_string(page) +
                                " record " + std::to_string(r) + ": " + record.status().message());
    }
    // Kept as stored after a crash too: a durable record claims a clean sector only while both
    // copies match (docs/on-disk-format.md, "Unclean shutdown").
    if (record->in_use()) {
      mapped_.push_back({record->core_line, record->dirty.any(), page * l.records_per_page + r});
    }
    EncodeRecord(l, *record, image.subspan(r * rs, rs));
  }
  return Status::Ok();
}

void OpenTask::finish_load() {
  auto store = std::make_shared<std::unique_ptr<PagedMetadataStore>>(
      std::make_unique<PagedMetadataStore>(ssd_, std::move(state_)));
  PagedMetadataStore* raw = store->get();
  raw->mark_in_use([self = shared_from_this(), store](Status s) {
    if (!s.ok()) {
      store->reset();
      return self->fail(std::move(s));
    }
    auto done = std::move(self->done_);
    done(std::unique_ptr<MetadataStore>(std::move(*store)));
  });
}

void OpenTask::fail(Status status) {
  EventLoop* loop = EventLoop::current();
  assert(loop != nullptr && "MetadataStore::Open must run on an event loop");
  loop->post([done = std::move(done_), status = std::move(status)] { done(status); });
}

}  // namespace tiercache
