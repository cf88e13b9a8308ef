// Crash tests (ocf surprise-shutdown style): run one workload of set_record / persist / set_mode /
// close_clean, crash at request #1, #2, ... until the workload finishes without a crash, reopen the
// SSD each time and check: everything a completed persist covered is there, nothing else appears,
// and every dirty line's data is on the SSD. The journal variant hands the store a record source
// (as the engine does), so persists are journal rounds, steps (page rounds with a marker block,
// asked for on this small region) once the journal is three quarters full (session 10's
// thresholds, pinned: the defaults step only once 14 of this journal's 16 blocks are used, too
// rarely to crash in), the journal wraps around its ring, checkpoints when the journal overflows
// and after a restart, and a checkpoint at the clean close.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/fault_injecting_device.h"
#include "cachelib/device/memory_device.h"
#include "cachelib/metadata/journal_block.h"
#include "cachelib/metadata/metadata_test_util.h"
#include "cachelib/metadata/superblock.h"
#include "tests/support/sync_io.h"

namespace tiercache {
namespace {


constexpr uint32_t kLineSize = 16 * 1024;  // 4 sectors
constexpr uint32_t kSectors = kLineSize / 4096;
const CoreIdentity kCore{"/dev/hdd0", 10ull << 30, 42};

// Passes writes 1..n-1, applies only the first half of write n and fails it, then fails every
// request: a power cut in the middle of write n on a disk without a volatile cache.
class TearingDevice final : public DeviceWrapper {
 public:
  TearingDevice(Device& target, uint64_t n) : DeviceWrapper(target), n_(n) {}
  bool crashed() const { return writes_ >= n_; }

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    if (++writes_ < n_) return DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
    if (writes_ == n_ && buf.size() >= 1024) {
      static_cast<MemoryDevice&>(target()).write_now(offset, buf.first(buf.size() / 2 / 512 * 512));
    }
    complete_later(std::move(cb), Status::IoError("power cut"));
  }
  void flush_impl(IoCallback cb) override {
    if (crashed()) return complete_later(std::move(cb), Status::IoError("power cut"));
    DeviceWrapper::flush_impl(std::move(cb));
  }

 private:
  const uint64_t n_;
  uint64_t writes_ = 0;
};

// Cuts the power of a FaultInjectingDevice when request #n (write or flush) arrives.
class PowerCutTrigger final : public DeviceWrapper {
 public:
  PowerCutTrigger(FaultInjectingDevice& target, uint64_t n)
      : DeviceWrapper(static_cast<Device&>(target)), fault_(target), n_(n) {}
  bool cut() const { return requests_ >= n_; }
  bool cut_done() const { return cut_done_; }

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    count();
    DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
  }
  void flush_impl(IoCallback cb) override {
    count();
    DeviceWrapper::flush_impl(std::move(cb));
  }

 private:
  void count() {
    if (++requests_ != n_) return;
    fault_.power_cut(
        [this](Status s) {
          EXPECT_TRUE(s.ok()) << s.ToString();
          cut_done_ = true;
        },
        n_);  // each non-durable write survives with probability 1/2
  }
  FaultInjectingDevice& fault_;
  const uint64_t n_;
  uint64_t requests_ = 0;
  bool cut_done_ = false;
};

// The workload and what it was told; then the check against what a reopen finds.
class Workload {
 public:
  Workload(SimEventLoop& loop, bool journal) : loop_(loop), journal_(journal) {}

  // Runs until the end or the first failed operation.
  void Run(Device& ssd) {
    std::unique_ptr<MetadataStore> store = Open(ssd);
    if (!store) return;
    const int rounds = journal_ ? 44 : 6, stages = journal_ ? 4 : 12;
    for (int round = 0; round < rounds; ++round) {
      for (int k = 0; k < stages; ++k) {
        if (!Stage(ssd, *store)) return;
      }
      if (round == 3) {
        mode_attempted_ = true;
        if (!testing::SyncSetMode(loop_, *store, CacheMode::kWriteBack).ok()) return;
        mode_acked_ = true;
      }
      if (journal_ && round == 34) Overflow(*store);
      if (!testing::SyncPersist(loop_, *store).ok()) return;
      for (auto& [line, c] : candidates_) c = {latest_[line]};
      if (journal_ && round == 7) {  // a restart without a clean close: the journal is replayed
        store.reset();
        if (!(store = Open(ssd))) return;
      }
    }
    if (!testing::SyncCloseClean(loop_, *store).ok()) return;
    finished_ = true;
  }

  void Verify(MemoryDevice& mem) {
    auto opened = testing::SyncOpen(loop_, mem, kCore);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    const MetadataStore& store = **opened;
    if (finished_) {
      EXPECT_TRUE(store.info().was_clean_shutdown);
    }
    if (mode_acked_) {
      EXPECT_EQ(store.info().mode, CacheMode::kWriteBack);
    }
    if (!mode_attempted_) {
      EXPECT_EQ(store.info().mode, CacheMode::kWriteThrough);
    }
    for (uint64_t line = 0; line < store.line_count(); ++line) {
      const LineRecord& got = store.loaded_record(line);
      SCOPED_TRACE("line " + std::to_string(line));
      if (store.info().was_clean_shutdown) {
        // Only close_clean sets the flag, after persisting everything.
        ASSERT_EQ(got, Latest(line));
      } else {
        ASSERT_TRUE(AnyCandidate(line, got)) << "unexpected record for core line " << got.core_line;
      }
      if (got.in_use()) CheckData(mem, store.data_offset(line), got.core_line);
    }
  }

  bool finished() const { return finished_; }

  // Journal blocks without entries on the SSD: the markers that steps wrote.
  static uint64_t Markers(MemoryDevice& mem) {
    const format::Layout l = testing::LayoutOnDevice(mem);
    std::vector<std::byte> block(format::kBlockSize);
    std::vector<std::byte> area(format::kSuperblockAreaSize);
    mem.read_now(0, area);
    const auto uuid = LoadSuperblock(area, "ssd")->sb.uuid;
    uint64_t markers = 0;
    for (uint64_t i = 0; i < l.journal_blocks; ++i) {
      mem.read_now(l.journal_block_offset(i), block);
      JournalHeader h;
      if (CheckJournalBlock(l, block, uuid, &h) == JournalBlockState::kValid && h.entry_count == 0) {
        ++markers;
      }
    }
    return markers;
  }

 private:
  std::unique_ptr<MetadataStore> Open(Device& ssd) {
    auto opened = testing::SyncOpen(
        loop_, ssd, kCore,
        StoreOptions{.steps_above_pages = 0, .one_step_above = {3, 4}, .four_steps_above = {7, 8}});
    if (!opened.ok()) return nullptr;
    std::unique_ptr<MetadataStore> store = std::move(opened).value();
    lines_ = store->line_count();
    if (journal_) {
      // Opened right after an acknowledged persist: the load is what the workload last staged.
      for (uint64_t line = 0; line < lines_; ++line) {
        EXPECT_EQ(store->loaded_record(line), Latest(line));
      }
      store->release_loaded();
      store->set_record_source([this](uint64_t first, std::span<LineRecord> out) {
        for (size_t i = 0; i < out.size(); ++i) out[i] = Latest(first + i);
      });
    }
    return store;
  }
  // More changes than the journal holds (the same lines again and again): the next persist must
  // be a checkpoint.
  void Overflow(MetadataStore& store) {
    const format::Layout l = format::LayoutFor(kLineSize, lines_);
    for (uint64_t i = 0; i <= l.journal_blocks * l.journal_entries_per_block; ++i) {
      store.mark_changed(latest_.begin()->first);
    }
  }
  void Change(MetadataStore& store, uint64_t line, const LineRecord& rec) {
    latest_[line] = rec;
    if (journal_) {
      store.mark_changed(line);
    } else {
      store.set_record(line, rec);
    }
  }
  // Stages one change: a new line (data written first), new bits for a used line, or a free.
  bool Stage(Device& ssd, MetadataStore& store) {
    uint64_t line = rng_() % lines_;
    LineRecord rec;
    auto it = latest_.find(line);
    if (it == latest_.end()) {
      if (used_.count(line)) return true;  // a freed line is never reused by this workload
      rec = testing::MakeRecord(rng_(), next_core_line_++, kSectors, rng_() % 4 != 0);
      auto data = testing::Pattern(rec.core_line, 0, 4096);
      if (!testing::SyncWrite(loop_, ssd, store.data_offset(line), data).ok()) return false;
      used_.insert(line);
    } else if (!it->second.in_use()) {
      return true;
    } else if (rng_() % 5 == 0) {
      rec = LineRecord{};  // free
    } else {
      rec = testing::MakeRecord(rng_(), it->second.core_line, kSectors, rng_() % 4 != 0);
    }
    Change(store, line, rec);
    // The SSD still holds a free record for a line never persisted.
    auto [c, fresh] = candidates_.try_emplace(line, std::vector<LineRecord>{LineRecord{}});
    c->second.push_back(rec);
    return true;
  }
  LineRecord Latest(uint64_t line) const {
    auto it = latest_.find(line);
    return it == latest_.end() ? LineRecord{} : it->second;
  }
  bool AnyCandidate(uint64_t line, const LineRecord& got) const {
    auto it = candidates_.find(line);
    if (it == candidates_.end()) return !got.in_use();
    for (const LineRecord& c : it->second) {
      if (c == got) return true;
    }
    return false;
  }
  void CheckData(MemoryDevice& mem, uint64_t offset, uint64_t core_line) {
    std::vector<std::byte> data(4096);
    mem.read_now(offset, data);
    EXPECT_EQ(data, testing::Pattern(core_line, 0, 4096)) << "data of core line " << core_line;
  }

  SimEventLoop& loop_;
  const bool journal_;
  std::mt19937_64 rng_{7};
  uint64_t lines_ = 0;
  uint64_t next_core_line_ = 1;
  std::set<uint64_t> used_;
  std::map<uint64_t, LineRecord> latest_;
  // Values a reopen may find: the last acknowledged one and everything staged since.
  std::map<uint64_t, std::vector<LineRecord>> candidates_;
  bool mode_attempted_ = false, mode_acked_ = false, finished_ = false;
};

Status FormatFresh(SimEventLoop& loop, MemoryDevice& mem) {
  FormatOptions o;
  o.line_size = kLineSize;
  return testing::SyncFormat(loop, mem, kCore, o);
}

class MetadataCrashTest : public ::testing::TestWithParam<bool> {};

TEST_P(MetadataCrashTest, TornWriteAtEveryPoint) {
  uint64_t n = 1;
  for (;; ++n) {
    SCOPED_TRACE("crash at write " + std::to_string(n));
    SimEventLoop loop;
    MemoryDevice mem("ssd", 32ull << 20);
    ASSERT_TRUE(FormatFresh(loop, mem).ok());
    TearingDevice dev(mem, n);
    Workload w(loop, GetParam());
    w.Run(dev);
    loop.run_until_idle();
    w.Verify(mem);
    if (::testing::Test::HasFatalFailure()) return;
    if (!dev.crashed()) {
      EXPECT_TRUE(w.finished());
      // The journal variant really went through steps (the ring overwrites older markers).
      if (GetParam()) {
        EXPECT_GE(Workload::Markers(mem), 2u);
      }
      break;
    }
  }
  EXPECT_GT(n, 40u);  // the workload really went through many crash points
}

TEST_P(MetadataCrashTest, PowerCutWithVolatileWriteCacheAtEveryPoint) {
  uint64_t n = 1;
  for (;; ++n) {
    SCOPED_TRACE("power cut at request " + std::to_string(n));
    SimEventLoop loop;
    MemoryDevice mem("ssd", 32ull << 20);
    ASSERT_TRUE(FormatFresh(loop, mem).ok());
    FaultInjectingDevice fault(mem);
    PowerCutTrigger dev(fault, n);
    Workload w(loop, GetParam());
    w.Run(dev);
    loop.run_until_idle();
    if (!dev.cut()) {
      EXPECT_TRUE(w.finished());
      break;
    }
    ASSERT_TRUE(dev.cut_done());
    w.Verify(mem);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(n, 80u);
}

INSTANTIATE_TEST_SUITE_P(Stores, MetadataCrashTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? std::string("RecordJournal") : std::string("Pages");
                         });

}  // namespace
}  // namespace tiercache
