// MetadataStore: owns the on-SSD format (see format.h and docs/on-disk-format.md): a superblock,
// a metadata region of line records, and the data region. It creates, loads and persists them; the
// engine keeps live line state and tells the store which records changed.
//
// Durability design (the write-back contract):
// - Records live in 4 KiB metadata pages; each page has two on-SSD slots written alternately,
//   each with an xxHash checksum and the number of the persist round that wrote it. A round
//   (at most 256 pages) is announced in the superblock (intent), written, flushed and committed
//   in the superblock, so load tells a torn write of the uncommitted round (fall back to the
//   committed copy) from damage to committed metadata (Corruption, never a silent rollback).
// - persist() appends the records of the lines changed since the last persist() to the record
//   journal (flush, journal blocks, flush) when a record source is set and they fit; otherwise it
//   checkpoints: every page changed since the last checkpoint, in rounds of intent, flush, pages,
//   flush, commit, flush (3 flushes per round), the last commit starting an empty journal epoch.
//   Nothing changed: 1 flush. The engine calls it on FLUSH / FUA after the data writes it
//   covers have completed. The store keeps no copy of the records: it asks the engine's record
//   source for the records it writes, so the live state (a few bytes per line) is the only
//   per-line memory.
// - open() marks the superblock "in use" (clean_shutdown = false) durably before returning;
//   close_clean() persists everything and sets clean_shutdown = true.
// - Load keeps every record as stored, after an unclean shutdown too (format version 4 and
//   later): the engine lets a record claim a clean sector only while both copies match durably.
//
// Thread-safety: mark_changed(), set_record() and persist() may be called from any loop thread
// concurrently.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>

#include "cachelib/device/device.h"
#include "cachelib/metadata/core_identity.h"
#include "cachelib/metadata/line_record.h"
#include "cachelib/metadata/store_options.h"
#include "policy/policy_options.h"

namespace tiercache {

enum class CacheMode : uint8_t { kWriteThrough = 0, kWriteBack = 1, kWriteAround = 2, kPassThrough = 3 };
std::string_view ModeName(CacheMode mode);          // "wt", "wb", "wa", "pt"
Result<CacheMode> ParseMode(std::string_view name);  // accepts the short names

struct FormatOptions {
  uint32_t line_size = 4096;  // bytes; power of two in [4 KiB, 1 MiB]. Fixed at create.
  CacheMode mode = CacheMode::kWriteThrough;
  bool force = false;              // overwrite an existing tiercache superblock
  PolicyOptions policies;          // recorded in the superblock; the daemon runs them
  // Validates ranges; returns InvalidArgument naming the bad field.
  Status validate() const;
};

// Read-only view of the superblock, as loaded.
struct SuperblockInfo {
  std::array<uint8_t, 16> uuid{};
  uint32_t version = 0;
  CoreIdentity core;
  uint32_t line_size = 0;
  CacheMode mode = CacheMode::kWriteThrough;
  bool was_clean_shutdown = false;  // the flag as found at open
  uint64_t line_count = 0;
  uint64_t data_offset = 0;         // byte offset of line 0's data on the SSD
  PolicyOptions policies;           // as recorded when loaded (create or set_policies)
  uint32_t shard_stripe_lines = 0;  // version 7: lines per shard stripe; 0: contiguous shards
};

// What the store wrote since open, and how full the record journal is (tiercache status).
struct MetadataCounters {
  uint64_t journal_rounds = 0;  // persists that appended the changed records to the journal
  uint64_t steps = 0;           // page rounds that freed the journal's oldest rounds
  uint64_t checkpoints = 0;     // persists that wrote every changed page
  uint64_t journal_blocks_used = 0;  // blocks the journal's live rounds hold now
  uint64_t journal_blocks = 0;       // the journal's size in 4 KiB blocks
};

class MetadataStore {
 public:
  using OpenCallback = std::function<void(Result<std::unique_ptr<MetadataStore>>)>;

  // Writes a fresh superblock and an empty metadata region to `ssd`. Refuses (InvalidArgument)
  // an SSD too small for at least 16 lines, and (Busy) an SSD that already holds a tiercache or any
  // non-zero superblock area unless options.force. Nothing is written to `core`.
  static void Format(Device& ssd, const CoreIdentity& core, const FormatOptions& options,
                     std::function<void(Status)> done);

  // Loads the superblock and all records. Refuses with a clear message: no/foreign superblock
  // (NotFound/Corruption), checksum mismatch (Corruption), core size or fingerprint mismatch
  // (InvalidArgument, naming the recorded and given core), invalid options (InvalidArgument).
  // Marks the cache in use on success.
  static void Open(Device& ssd, const CoreIdentity& core, OpenCallback done,
                   const StoreOptions& options = {});

  const SuperblockInfo& info() const { return info_; }
  uint64_t line_count() const { return info_.line_count; }
  uint64_t data_offset(uint64_t line) const { return info_.data_offset + line * info_.line_size; }

  // The records as loaded by Open (already filtered after an unclean shutdown); free after
  // release_loaded().
  virtual LineRecord loaded_record(uint64_t line) const = 0;
  // Calls fn(line, record) for every in-use record Open loaded, in line order, skipping pages that
  // were never written (a fresh cache loads in no time).
  virtual void for_each_loaded(const std::function<void(uint64_t, const LineRecord&)>& fn) const = 0;
  // Frees what Open loaded (call once the owner has taken the records).
  virtual void release_loaded() = 0;

  // Where persist() gets the records of a changed page: fills out[i] with the record of line
  // first + i. Called from persist rounds, on any thread, with no store lock held.
  using RecordSource = std::function<void(uint64_t first, std::span<LineRecord> out)>;
  // The owner of the live line state (the engine) hands it over once, before mark_changed().
  virtual void set_record_source(RecordSource source) = 0;
  // `line` changed: its record is journaled (or its page rewritten), from the record source, at
  // the next persist(). Call it after the change, for every line whose record changes.
  virtual void mark_changed(uint64_t line) = 0;
  // Without a record source (tools, store tests): stages `record` as the new value of `line`; the
  // store then keeps every line's record in memory.
  virtual void set_record(uint64_t line, const LineRecord& record) = 0;
  // Writes every staged page (double-slotted) and flushes the SSD; done(OK) means all records
  // staged before this call are durable. Concurrent calls are allowed and each keeps its promise.
  virtual void persist(IoCallback done) = 0;
  // Records the mode in the superblock (durably).
  virtual void set_mode(CacheMode mode, IoCallback done) = 0;
  // Records the policies in the superblock (durably), as set_mode does the mode; info() keeps
  // what was loaded. On failure either set may be recorded (one copy may have been written).
  virtual void set_policies(const PolicyOptions& policies, IoCallback done) = 0;
  // persist(), then superblock clean_shutdown = true, then flush.
  virtual void close_clean(IoCallback done) = 0;
  // Thread-safe.
  virtual MetadataCounters counters() const = 0;

  virtual ~MetadataStore() = default;

 protected:
  SuperblockInfo info_;
};

}  // namespace tiercache
