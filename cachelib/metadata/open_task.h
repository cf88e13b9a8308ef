// OpenTask: the callback-driven load behind MetadataStore::Open: read both superblock copies, check
// them against the SSD and the core, read the metadata region in chunks, choose each page's slot,
// decode the records, replay the record journal over them, reject duplicate mappings, then mark
// the cache in use.
// Owns itself (shared_ptr) until it reports; runs on the loop Open was called on.
#pragma once

#include <memory>
#include <vector>

#include "cachelib/metadata/journal_replay.h"
#include "cachelib/metadata/metadata_page.h"
#include "cachelib/metadata/paged_metadata_store.h"

namespace tiercache {

class OpenTask : public std::enable_shared_from_this<OpenTask> {
 public:
  static void Start(Device& ssd, const CoreIdentity& core, const StoreOptions& options,
                    MetadataStore::OpenCallback done);

  OpenTask(Device& ssd, CoreIdentity core, MetadataStore::OpenCallback done);

 private:
  void read_superblock();
  Status check_superblock(const Superblock& sb) const;
  void read_next_chunk();
  Status load_page(uint64_t page, std::span<const std::byte> bytes);
  Status choose_and_load(uint64_t page, std::span<const std::byte> bytes, const RoundRule& rule);
  Status load_records(uint64_t page, std::span<const std::byte> slot);
  Status load_intent_pages();
  void read_journal_chunk();
  Status replay_journal();
  Status check_duplicates();
  void finish_load();
  void fail(Status status);

  Device& ssd_;
  const CoreIdentity core_;
  MetadataStore::OpenCallback done_;
  std::vector<std::byte> buf_;
  uint64_t next_page_ = 0;
  uint64_t next_journal_block_ = 0;
  std::unique_ptr<JournalReplay> journal_;
  uint64_t pages_per_chunk_ = 0;
  uint64_t core_lines_ = 0;
  std::vector<std::byte> free_record_;
  PagedMetadataStore::State state_;
  // The pages of an uncommitted round, kept until every page is read: whether that round was
  // completely written decides how their slots load (docs/on-disk-format.md "Load rules").
  std::vector<std::pair<uint64_t, std::vector<std::byte>>> intent_pages_;
  bool rolled_forward_ = false;  // the superblock's uncommitted round was taken as committed
  struct Mapped {
    uint64_t core_line;
    bool dirty;      // the record has dirty sectors
    uint64_t line;   // cache line
    auto operator<=>(const Mapped&) const = default;
  };
  std::vector<Mapped> mapped_;  // every loaded line in use
};

}  // namespace tiercache
