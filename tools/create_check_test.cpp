// create and check: on MemoryDevices through the library functions, and end to end on files
// through the verbs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "cachelib/device/memory_device.h"
#include "cachelib/metadata/format.h"
#include "daemon/control/unix_socket.h"
#include "tests/support/temp_dir.h"
#include "tools/check_command.h"
#include "tools/line_records_for_test.h"
#include "tools/create_command.h"
#include "tools/exit_codes.h"
#include "tools/metadata_diagnosis.h"
#include "tools/tool_devices.h"

namespace tiercache {
namespace {

using StorePtr = std::unique_ptr<MetadataStore>;

constexpr uint64_t kSsdSize = 4 << 20;    // 62 lines of 64 KiB after the metadata and journal
constexpr uint64_t kCoreSize = 64 << 20;  // 1024 core lines

class InspectCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto runner = AsyncRunner::Start();
    ASSERT_TRUE(runner.ok());
    runner_ = std::move(runner).value();
    core_.path = "/dev/fake-core";
    core_.size = kCoreSize;
    core_.fingerprint = 0x1234;
    FormatOptions options;
    options.mode = CacheMode::kWriteBack;
    options.line_size = 65536;  // the records below use 16-sector lines
    Result<LoadedSuperblock> sb = FormatCache(*runner_, ssd_, core_, options);
    ASSERT_TRUE(sb.ok()) << sb.status().ToString();
    EXPECT_EQ(sb->sb.layout.line_count, 62u);
    EXPECT_EQ(sb->sb.layout, format::LayoutForSsd(kSsdSize, 65536));
  }
  // Opens the store, stages `records`, persists and closes it cleanly.
  void write_records(const std::vector<std::pair<uint64_t, LineRecord>>& records) {
    Result<StorePtr> store = runner_->run_result<StorePtr>([&](auto done) {
      MetadataStore::Open(ssd_, core_, std::move(done));
    });
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (const auto& [line, record] : records) (*store)->set_record(line, record);
    Status closed = runner_->run([&](auto done) { (*store)->close_clean(std::move(done)); });
    ASSERT_TRUE(closed.ok()) << closed.ToString();
  }
  std::vector<std::byte> contents() {
    std::vector<std::byte> out(kSsdSize);
    ssd_.read_now(0, out);
    return out;
  }

  std::unique_ptr<AsyncRunner> runner_;
  MemoryDevice ssd_{"ssd", kSsdSize, 4096};
  CoreIdentity core_;
};

TEST_F(InspectCacheTest, FreshCache) {
  std::vector<std::byte> before = contents();
  Result<CheckReport> report = InspectCache(*runner_, ssd_, std::nullopt);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->info.line_count, 62u);
  EXPECT_EQ(report->info.line_size, 65536u);
  EXPECT_EQ(report->info.mode, CacheMode::kWriteBack);
  EXPECT_EQ(report->info.core, core_);
  EXPECT_TRUE(report->core_from_superblock);
  EXPECT_EQ(report->records.lines_used, 0u);
  EXPECT_EQ(report->records.problem_count, 0u);
  EXPECT_EQ(contents(), before);  // opening marked the cache in use only in the overlay
}

TEST_F(InspectCacheTest, CountsLinesAndSectors) {
  write_records({{0, Record(5, 16, 0)}, {7, Record(6, 16, 3)}, {61, Record(1023, 4, 4)}});
  std::vector<std::byte> before = contents();
  Result<CheckReport> report = InspectCache(*runner_, ssd_, core_);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->info.was_clean_shutdown);
  EXPECT_FALSE(report->core_from_superblock);
  EXPECT_EQ(report->records.lines_used, 3u);
  EXPECT_EQ(report->records.lines_dirty, 2u);
  EXPECT_EQ(report->records.valid_sectors, 36u);
  EXPECT_EQ(report->records.dirty_sectors, 7u);
  EXPECT_EQ(report->records.problem_count, 0u);
  EXPECT_EQ(contents(), before);
}

TEST_F(InspectCacheTest, TwoLinesHoldingOneCoreLineIsRefused) {
  write_records({{3, Record(9, 1, 1)}, {4, Record(9, 2, 1)}});  // both dirty
  Result<CheckReport> report = InspectCache(*runner_, ssd_, std::nullopt);
  EXPECT_EQ(report.status().code(), Status::Code::kCorruption);
  EXPECT_EQ(report.status().message(), "ssd: lines 3 and 4 both map core line 9");
}

TEST_F(InspectCacheTest, ADamagedCommittedPageIsExplained) {
  write_records({{0, Record(5, 16, 0)}, {7, Record(6, 16, 3)}});   // round 1: page 0 slot B
  write_records({{7, Record(6, 16, 5)}, {8, Record(11, 16, 16)}});  // round 2: page 0 slot A
  std::vector<std::byte> junk(64, std::byte{0x5a});
  ssd_.write_now(format::kMetadataOffset + 1000, junk);
  Result<CheckReport> report = InspectCache(*runner_, ssd_, std::nullopt);
  EXPECT_EQ(report.status().code(), Status::Code::kCorruption);
  Result<LoadedSuperblock> sb = ReadSuperblock(*runner_, ssd_);
  ASSERT_TRUE(sb.ok());
  Result<MetadataDiagnosis> d = DiagnoseMetadata(*runner_, ssd_, sb->sb);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->pages_refused, 1u);
  ASSERT_EQ(d->findings.size(), 1u);
  EXPECT_EQ(d->findings[0],
            "metadata page 0 slot A fails its checksum, and no uncommitted round wrote it: "
            "committed metadata is damaged (lines 0-61). Its older committed copy (round 1) is "
            "readable: 2 lines in use, 1 dirty (12288 bytes). A salvage loading it would lose "
            "every change to lines 0-61 after round 1 (of up to 4063232 bytes of cached data), "
            "and could revive mappings since reused for other blocks.");
}

TEST_F(InspectCacheTest, WrongCoreIsRefused) {
  CoreIdentity other = core_;
  other.size = kCoreSize * 2;
  Result<CheckReport> report = InspectCache(*runner_, ssd_, other);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), Status::Code::kInvalidArgument);
}

TEST_F(InspectCacheTest, CorruptSuperblocksAreCorruption) {
  std::vector<std::byte> junk(16, std::byte{0x5a});
  ssd_.write_now(format::kSuperblockOffset[0] + 4032, junk);
  ssd_.write_now(format::kSuperblockOffset[1] + 4032, junk);
  Result<CheckReport> report = InspectCache(*runner_, ssd_, std::nullopt);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), Status::Code::kCorruption) << report.status().ToString();
}

TEST_F(InspectCacheTest, BlankDeviceIsNotFound) {
  MemoryDevice blank("blank", kSsdSize, 4096);
  Result<CheckReport> report = InspectCache(*runner_, blank, std::nullopt);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), Status::Code::kNotFound) << report.status().ToString();
}

// The verbs end to end on files.
class CreateCheckVerbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.path();
    setenv("TIERCACHE_RUN_DIR", dir_.c_str(), 1);
    ssd_ = dir_ + "/ssd.img";
    core_ = dir_ + "/core.img";
    std::filesystem::resize_file(Touch(ssd_), kSsdSize);
    std::filesystem::resize_file(Touch(core_), kCoreSize);
  }
  void TearDown() override {
    unsetenv("TIERCACHE_RUN_DIR");
  }
  // create refuses with exactly `message`, and creates the cache with --force.
  void ExpectRefusedUnlessForced(const std::string& message) {
    EXPECT_EQ(run(RunCreate, create_options()), kExitFailed);
    EXPECT_EQ(err_.str(), "tiercache create: " + message + "\n");
    CliOptions force = create_options();
    force.force = true;
    ASSERT_EQ(run(RunCreate, force), kExitOk) << err_.str();
  }
  // Overwrites `bytes` at `offset` of the file at `path`.
  static void WriteAt(const std::string& path, uint64_t offset, std::string_view bytes) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(offset));
    f.write(bytes.data(), std::streamsize(bytes.size()));
  }
  static std::string Touch(const std::string& path) {
    int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
    ::close(fd);
    return path;
  }
  int run(int (*verb)(const CliOptions&, CommandIo&), CliOptions o, bool json = false) {
    out_.str("");
    err_.str("");
    o.json = json;
    CommandIo io{out_, err_, json, false};
    return verb(o, io);
  }
  CliOptions create_options() {
    CliOptions o;
    o.verb = Verb::kCreate;
    o.cache = ssd_;
    o.core = core_;
    o.line_size = 64 * 1024;  // as `--line-size 64K`: the expected layouts below use it
    return o;
  }
  CliOptions check_options() {
    CliOptions o;
    o.verb = Verb::kCheck;
    o.cache = ssd_;
    return o;
  }

  testing::TempDir tmp_{"tc-create", "/var/tmp"};

  std::string dir_, ssd_, core_;
  std::ostringstream out_, err_;
};

TEST_F(CreateCheckVerbTest, CreateThenCheck) {
  ASSERT_EQ(run(RunCreate, create_options()), kExitOk) << err_.str();
  // The file is sparse, but its 4 MiB fit in what the filesystem has free: no warning.
  EXPECT_EQ(err_.str(), "");
  std::string out = out_.str();
  EXPECT_EQ(out.substr(0, out.find("uuid:")),
            "created a tiercache on " + ssd_ + " (4 MiB) for " + core_ + " (64 MiB)\n");
  EXPECT_NE(out.find("mode:       wt\n"
                     "policies:   admission adaptive, replacement epoch-lru, "
                     "sequential cutoff 4 MiB\n"
                     "lines:      62 of 64 KiB (3.9 MiB of cache)\n"
                     "start with: tiercached --cache " + ssd_ + " --core " + core_ + "\n"),
            std::string::npos)
      << out;

  ASSERT_EQ(run(RunCheck, check_options()), kExitOk) << err_.str();
  out = out_.str();
  EXPECT_NE(out.find("core:       " + core_ + " (64 MiB, as recorded; not opened)\n"),
            std::string::npos) << out;
  EXPECT_NE(out.find("mode:       wt\n"
                     "policies:   admission adaptive, replacement epoch-lru, "
                     "sequential cutoff 4 MiB\n"
                     "layout:     62 lines of 64 KiB (shard stripes of 1 line), 1 metadata pages, "
                     "a record journal of 64 KiB, "
                     "data at 128 KiB\n"
                     "shutdown:   clean\n"
                     "lines:      0 used, 0 dirty (0 dirty sectors, 0 B)\n"
                     "result:     OK\n"),
            std::string::npos) << out;

  CliOptions with_core = check_options();
  with_core.core = core_;
  ASSERT_EQ(run(RunCheck, with_core, /*json=*/true), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("\"mode\":\"wt\",\"line_size\":65536,\"line_count\":62,"
                            "\"shard_stripe_lines\":1,\"clean_shutdown\":true,\"lines_used\":0,"
                            "\"lines_dirty\":0,\"dirty_sectors\":0,\"problems\":[],\"policies\":{"
                            "\"admission\":\"adaptive\",\"replacement\":\"epoch-lru\","
                            "\"sequential\":{\"enabled\":true,\"read_cutoff_bytes\":4194304,"
                            "\"write_cutoff_bytes\":4194304,\"streams\":64}}}\n"),
            std::string::npos) << out_.str();
}

// A core whose size is not a multiple of 4 KiB: created, with a warning that says what the
// volume leaves out (tiercached serves its whole 4 KiB blocks).
// A sparse cache file gets its metadata region (up to the data) allocated at create, so that a
// full filesystem can stop its data writes (it stops caching) but never its metadata persists,
// which every FLUSH waits for; the data region stays sparse.
TEST_F(CreateCheckVerbTest, CreateAllocatesTheMetadataRegionOfASparseFile) {
  ASSERT_EQ(run(RunCreate, create_options(), /*json=*/true), kExitOk) << err_.str();
  const uint64_t data_offset = 131072;  // "data at 128 KiB" (CreateThenCheck)
  EXPECT_NE(out_.str().find("\"data_offset\":" + std::to_string(data_offset) + ","),
            std::string::npos) << out_.str();
  struct stat st {};
  ASSERT_EQ(::stat(ssd_.c_str(), &st), 0);
  EXPECT_GE(uint64_t(st.st_blocks) * 512, data_offset);
  EXPECT_LT(uint64_t(st.st_blocks) * 512, kSsdSize / 2);  // the lines are not allocated
}

TEST_F(CreateCheckVerbTest, CreateWarnsOfACoreTailThatIsNotServed) {
  std::filesystem::resize_file(core_, kCoreSize + 1000);
  ASSERT_EQ(run(RunCreate, create_options()), kExitOk) << err_.str();
  EXPECT_EQ(err_.str(), "tiercache create: warning: core " + core_ + " is " +
                            std::to_string(kCoreSize + 1000) + " bytes, not a multiple of 4 KiB: "
                            "the cached volume is " + std::to_string(kCoreSize) +
                            " bytes; its last 1000 bytes are not served\n");
}

// Check reports the format version the SSD holds: a version 6 cache is not shown as the
// version 7 that opening it (in the overlay) writes.
TEST_F(CreateCheckVerbTest, CheckReportsTheVersionOnTheSsd) {
  ASSERT_EQ(run(RunCreate, create_options()), kExitOk) << err_.str();
  {
    std::fstream f(ssd_, std::ios::in | std::ios::out | std::ios::binary);
    std::vector<std::byte> copy(format::kBlockSize);
    for (uint64_t at : format::kSuperblockOffset) {
      f.seekg(std::streamoff(at));
      f.read(reinterpret_cast<char*>(copy.data()), std::streamsize(copy.size()));
      format::PutU32(copy, format::sb::kVersion, 6);
      format::PutU32(copy, format::sb::kShardStripeLines, 0);
      format::PutU64(copy, format::sb::kChecksum, format::Checksum(std::span(copy).subspan(16)));
      f.seekp(std::streamoff(at));
      f.write(reinterpret_cast<const char*>(copy.data()), std::streamsize(copy.size()));
    }
    ASSERT_TRUE(f.good());
  }
  ASSERT_EQ(run(RunCheck, check_options()), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("superblock: version 6, uuid "), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("layout:     62 lines of 64 KiB (one range per shard), "),
            std::string::npos) << out_.str();
  ASSERT_EQ(run(RunCheck, check_options(), /*json=*/true), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("\"format_version\":6,"), std::string::npos) << out_.str();
}

// A copy of the superblock that fails its checksum next to a valid one is a torn or damaged
// write: the load takes the other copy and loses nothing, and check says so instead of keeping
// quiet about it.
TEST_F(CreateCheckVerbTest, CheckWarnsOfADamagedSuperblockCopy) {
  ASSERT_EQ(run(RunCreate, create_options()), kExitOk) << err_.str();
  ASSERT_EQ(run(RunCheck, check_options()), kExitOk) << err_.str();
  EXPECT_EQ(out_.str().find("warning:"), std::string::npos) << out_.str();
  {
    std::fstream f(ssd_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(format::kSuperblockOffset[0] + 500));
    f.put('\x5a');
    ASSERT_TRUE(f.good());
  }
  ASSERT_EQ(run(RunCheck, check_options()), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find(", copy 1 (sequence "), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("\nwarning:    superblock copy 0: checksum fails (a torn or damaged "
                            "write); loaded from copy 1, and tiercached rewrites both when it "
                            "next opens the cache\n"),
            std::string::npos)
      << out_.str();
  EXPECT_NE(out_.str().find("result:     OK\n"), std::string::npos) << out_.str();
}

TEST_F(CreateCheckVerbTest, CreateRecordsThePoliciesAndCheckShowsThem) {
  CliOptions o = create_options();
  o.policies.replacement = "lru";
  o.policies.sequential.read_cutoff_bytes = 1 << 20;
  o.policies.sequential.write_cutoff_bytes = 2 << 20;
  o.policies.sequential.streams = 16;
  ASSERT_EQ(run(RunCreate, o, /*json=*/true), kExitOk) << err_.str();
  std::string out = out_.str();
  EXPECT_EQ(out.substr(out.find(",\"data_offset\"")),
            ",\"data_offset\":131072,\"policies\":{\"admission\":\"adaptive\",\"replacement\":\"lru\","
            "\"sequential\":{\"enabled\":true,\"read_cutoff_bytes\":1048576,"
            "\"write_cutoff_bytes\":2097152,\"streams\":16}},\"warnings\":[]}\n");
  ASSERT_EQ(run(RunCheck, check_options()), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("mode:       wt\n"
                            "policies:   admission adaptive, replacement lru, sequential cutoff "
                            "1 MiB reads, 2 MiB writes\n"),
            std::string::npos) << out_.str();

  CliOptions off = create_options();
  off.force = true;
  off.policies.sequential.enabled = false;
  off.policies.sequential.read_cutoff_bytes = 0;
  off.policies.sequential.write_cutoff_bytes = 0;
  ASSERT_EQ(run(RunCreate, off), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("policies:   admission adaptive, replacement epoch-lru, "
                            "sequential cutoff off\n"),
            std::string::npos) << out_.str();
  ASSERT_EQ(run(RunCheck, check_options(), /*json=*/true), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("\"sequential\":{\"enabled\":false,\"read_cutoff_bytes\":0,"
                            "\"write_cutoff_bytes\":0,\"streams\":64}"),
            std::string::npos) << out_.str();
}

TEST_F(CreateCheckVerbTest, CreateRefusesAnUnknownPolicyWithTheEnginesMessage) {
  CliOptions o = create_options();
  o.policies.replacement = "arc";
  EXPECT_EQ(run(RunCreate, o), kExitFailed);
  EXPECT_EQ(err_.str(), "tiercache create: unknown replacement policy 'arc' (lru, clock, s3fifo, "
                        "sieve, epoch-lru)\n");
  EXPECT_EQ(run(RunCheck, check_options()), kExitFailed);  // nothing was written
}

TEST_F(CreateCheckVerbTest, RelativePathsAreRecordedAbsolute) {
  std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  CliOptions o = create_options();
  o.cache = "./ssd.img";
  o.core = "core.img";
  int code = run(RunCreate, o, /*json=*/true);
  std::filesystem::current_path(cwd);
  ASSERT_EQ(code, kExitOk) << err_.str();
  EXPECT_EQ(out_.str().substr(0, out_.str().find(",\"uuid\"")),
            "{\"ok\":true,\"cache\":\"" + ssd_ + "\",\"core\":\"" + core_ +
                "\",\"core_size\":67108864");
}

TEST_F(CreateCheckVerbTest, CreateRefusesToOverwriteWithoutForce) {
  ASSERT_EQ(run(RunCreate, create_options()), kExitOk) << err_.str();
  EXPECT_EQ(run(RunCreate, create_options()), kExitFailed);
  EXPECT_NE(err_.str().find("already holds a tiercache cache; use --force to overwrite it"),
            std::string::npos) << err_.str();
  CliOptions force = create_options();
  force.force = true;
  force.line_size = 128 * 1024;
  force.create_mode = CacheMode::kWriteBack;
  ASSERT_EQ(run(RunCreate, force, /*json=*/true), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("\"mode\":\"wb\",\"line_size\":131072,\"line_count\":31,"),
            std::string::npos) << out_.str();
}

TEST_F(CreateCheckVerbTest, CreateRefusesARunningCacheAndTheSameDevice) {
  std::string ctl = dir_ + "/ssd.img.ctl";  // the default control path of ssd.img
  Result<ListeningSocket> daemon = ListenUnix(ctl);
  ASSERT_TRUE(daemon.ok());
  EXPECT_EQ(run(RunCreate, create_options()), kExitFailed);
  EXPECT_EQ(err_.str(), "tiercache create: " + ssd_ + " is in use by a running tiercached "
                        "(control socket " + ctl + "); stop it first with `tiercache stop`\n");
  ::close(daemon->fd);

  CliOptions same = create_options();
  same.core = ssd_;
  EXPECT_EQ(run(RunCreate, same), kExitFailed);
  EXPECT_EQ(err_.str(), "tiercache create: --cache " + ssd_ + " and --core " + ssd_ +
                            " are the same device\n");
}

TEST_F(CreateCheckVerbTest, CheckWarnsWhenADaemonServesTheCache) {
  ASSERT_EQ(run(RunCreate, create_options()), kExitOk) << err_.str();
  std::string ctl = dir_ + "/ssd.img.ctl";
  Result<ListeningSocket> daemon = ListenUnix(ctl);
  ASSERT_TRUE(daemon.ok());
  EXPECT_EQ(run(RunCheck, check_options()), kExitOk);
  EXPECT_EQ(err_.str(), "tiercache check: warning: tiercached is running on this cache (" + ctl +
                            "); the SSD may not hold its latest metadata yet\n");
  ::close(daemon->fd);
}

// What mkfs warns of (QA, 2026-12-07: a swapped create wiped a btrfs HDD whose first 8 KiB were
// zero): a signature anywhere blkid looks, here an ISO 9660 volume descriptor at 32 KiB, and a
// cache larger than its core. --force overwrites both.
TEST_F(CreateCheckVerbTest, CreateRefusesAFilesystemAnywhereAndACacheLargerThanItsCore) {
  WriteAt(ssd_, 32768, "\x01" "CD001" "\x01");
  ASSERT_NO_FATAL_FAILURE(ExpectRefusedUnlessForced(
      ssd_ + " holds an iso9660 filesystem (found by blkid); use --force to overwrite it"));

  CliOptions swapped = create_options();
  swapped.cache = core_;
  swapped.core = ssd_;
  EXPECT_EQ(run(RunCreate, swapped), kExitFailed);
  EXPECT_EQ(err_.str(), "tiercache create: --cache " + core_ + " (64 MiB) is larger than --core " +
                        ssd_ + " (4 MiB): are the two swapped? The cache only ever holds copies "
                        "of the core's data; use --force to create it anyway\n");

  std::filesystem::resize_file(core_, 1000);
  CliOptions force = create_options();
  force.force = true;
  EXPECT_EQ(run(RunCreate, force), kExitFailed);
  EXPECT_EQ(err_.str(), "tiercache create: core " + core_ + " is 1000 bytes, less than one 4 KiB "
                        "sector: nothing to cache\n");
}

// Data past the first 8 KiB that no blkid signature names (QA, 2026-12-07: an HDD of the SSD's
// size given as --cache lost the data at 300 KiB): the first MiB is looked through.
TEST_F(CreateCheckVerbTest, CreateRefusesDataWithinTheFirstMiB) {
  WriteAt(ssd_, 300 << 10, "USERDATA");
  ExpectRefusedUnlessForced(ssd_ + " holds other data (at byte 307200); use --force to "
                            "overwrite it");
}

// Metadata blocks without a superblock (QA, 2026-12-07: a zeroed superblock area let a plain
// create, and random bytes there `--force`, overwrite a cache's dirty records): only --force
// --discard-dirty overwrites them.
TEST_F(CreateCheckVerbTest, CreateRefusesMetadataWhoseSuperblockIsGone) {
  ASSERT_EQ(run(RunCreate, create_options()), kExitOk) << err_.str();
  WriteAt(ssd_, format::kSuperblockAreaSize + 5 * format::kBlockSize, "TCMETAPG");
  WriteAt(ssd_, 0, std::string(format::kSuperblockAreaSize, '\0'));
  const std::string orphan = ssd_ + " holds tiercache metadata blocks but no tiercache "
                             "superblock (damaged or wiped): it may hold dirty data no tool can "
                             "read any more";
  EXPECT_EQ(run(RunCreate, create_options()), kExitFailed);
  EXPECT_EQ(err_.str(), "tiercache create: " + orphan +
                            "; use --force --discard-dirty to overwrite it\n");
  CliOptions force = create_options();
  force.force = true;
  EXPECT_EQ(run(RunCreate, force), kExitFailed);
  EXPECT_EQ(err_.str(), "tiercache create: " + orphan +
                            "; add --discard-dirty to overwrite it anyway\n");
  force.discard_dirty = true;
  ASSERT_EQ(run(RunCreate, force), kExitOk) << err_.str();
}

TEST_F(CreateCheckVerbTest, MissingDevicesFail) {
  CliOptions o = create_options();
  o.core = dir_ + "/nope.img";
  EXPECT_EQ(run(RunCreate, o), kExitFailed);
  EXPECT_EQ(err_.str(), "tiercache create: core " + dir_ + "/nope.img does not exist\n");
  CliOptions check = check_options();
  check.cache = dir_ + "/nope.img";
  EXPECT_EQ(run(RunCheck, check, /*json=*/true), kExitFailed);
  EXPECT_NE(out_.str().find("\"code\":\"NotFound\""), std::string::npos) << out_.str();
}

TEST_F(CreateCheckVerbTest, CheckFailsOnCorruptionAndWrongCore) {
  ASSERT_EQ(run(RunCreate, create_options()), kExitOk) << err_.str();
  std::string other = Touch(dir_ + "/other.img");
  std::filesystem::resize_file(other, kCoreSize);
  CliOptions wrong = check_options();
  wrong.core = other;
  EXPECT_EQ(run(RunCheck, wrong), kExitFailed);
  EXPECT_EQ(err_.str(), "tiercache check: core " + other + " is not the device cache " + ssd_ +
                            " was created for (" + core_ + "); if it holds the same data "
                            "under a new identity (a copied or restored image, a renumbered "
                            "device), re-bind it with `tiercache attach --cache " + ssd_ +
                            " --core " + other + "`\n");

  // Damage the metadata page (both slots) that holds every record.
  int fd = ::open(ssd_.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  std::string junk(64, 'x');
  for (uint64_t slot : {format::kMetadataOffset + 100, format::kMetadataOffset + 4096 + 100}) {
    ASSERT_EQ(pwrite(fd, junk.data(), junk.size(), off_t(slot)), ssize_t(junk.size()));
  }
  ::close(fd);
  EXPECT_EQ(run(RunCheck, check_options(), /*json=*/true), kExitFailed);
  EXPECT_NE(out_.str().find("\"code\":\"Corruption\""), std::string::npos) << out_.str();
}

}  // namespace
}  // namespace tiercache
