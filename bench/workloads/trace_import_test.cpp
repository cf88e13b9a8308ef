#include "bench/workloads/trace_import.h"

#include <fstream>

#include <gtest/gtest.h>

namespace tiercache::bench {
namespace {

using std::chrono::microseconds;

const char* const kBlkparse =
    "  8,0    3        1     0.000000000   697  Q   R 223490 + 8 [kworker/u8:0]\n"
    "  8,0    3        2     0.000001258   697  G   R 223490 + 8 [kworker/u8:0]\n"
    "  8,0    3        3     0.000004583   697  D   R 223490 + 8 [kworker/u8:0]\n"
    "  8,0    3        4     0.000010000   697  D   W 1000 + 16 [jbd2/sda1-8]\n"
    "  8,0    0        1     0.000180930     0  C   R 223490 + 8 [0]\n"
    "  8,0    0        2     0.000300000   697  D  RA 5000 + 256 [cat]\n"
    "  8,16   0        1     0.000001000   697  D   R 1 + 8 [other]\n"
    "  8,0    0        3     0.000400000     0  C   W 1000 + 16 [0]\n"
    "  8,0    1        5     0.000500000   123  D  FN [systemd]\n"
    "  8,0    0        4     0.000900000     0  C  RA 5000 + 256 [0]\n"
    "  8,0    1        6     0.001000000     0  C  FN [0]\n"
    "  8,0    1        7     0.001100000   123  D   N 0 + 0 [systemd]\n"
    "CPU0 (8,0):\n"
    " Reads Queued:           1,        4KiB\t Writes Queued:           0,        0KiB\n"
    "Total (8,0):\n";

TEST(BlkparseImportTest, DispatchEventsWithCompletionsBecomeDependencies) {
  ImportOptions o;
  o.device = "8,0";
  auto t = ParseBlkparse(kBlkparse, "boot-rec", o);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->name, "boot-rec");
  const std::vector<TraceRecord> want = {
      // D R at 4.583 us; nothing before it.
      {TraceOp::kRead, 223490ull * 512, 4096, -1, Nanos(0)},
      // D W at 10 us: nothing had completed; 5.417 us after the previous issue.
      {TraceOp::kWrite, 1000ull * 512, 8192, -1, Nanos(5417)},
      // D RA at 300 us: record 0 completed at 180.93 us.
      {TraceOp::kRead, 5000ull * 512, 131072, 0, Nanos(300000 - 180930)},
      // Flush at 500 us: record 1 completed at 400 us.
      {TraceOp::kFlush, 0, 0, 1, Nanos(100000)},
  };
  EXPECT_EQ(t->records, want);
  ASSERT_TRUE(t->validate().ok());
}

TEST(BlkparseImportTest, AllDevicesAndQueueEventsWithoutDispatch) {
  auto all = ParseBlkparse(kBlkparse, "x");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->records.size(), 5u);
  EXPECT_EQ(all->records[0], (TraceRecord{TraceOp::kRead, 512, 4096, -1, Nanos(0)}));
  // Only Q and C events: Q is the issue time.
  auto q = ParseBlkparse(
      "  8,0 0 1 1.5 1 Q WS 8 + 8 [a]\n  8,0 0 2 1.501 0 C WS 8 + 8 [0]\n"
      "  8,0 0 3 1.502 1 Q D 64 + 2048 [fstrim]\n",
      "q");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->records, (std::vector<TraceRecord>{
                            {TraceOp::kWrite, 4096, 4096, -1, Nanos(0)},
                            {TraceOp::kDiscard, 32768, 1 << 20, 0, Nanos(1000000)},
                        }));
  EXPECT_EQ(ParseBlkparse("CPU0 (8,0):\n", "e").status().code(), Status::Code::kInvalidArgument);
}

TEST(FioIologImportTest, Version2WithWaitTrimAndSync) {
  auto t = ParseFioIolog(
      "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb read 0 4096\n"
      "/dev/sdb wait 500 0\n/dev/sdb write 8192 16384\n/dev/sdb trim 1048576 65536\n"
      "/dev/sdb sync 0 0\n/dev/sdb close\n",
      "fio2");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->records, (std::vector<TraceRecord>{
                            {TraceOp::kRead, 0, 4096, -1, Nanos(0)},
                            {TraceOp::kWrite, 8192, 16384, 0, microseconds(500)},
                            {TraceOp::kDiscard, 1048576, 65536, 1, Nanos(0)},
                            {TraceOp::kFlush, 0, 0, 2, Nanos(0)},
                        }));
}

TEST(FioIologImportTest, Version3AsFioWritesItAtQueueDepth) {
  // The first lines of a log written by fio 3.33 (--write_iolog).
  const char* log =
      "fio version 3 iolog\n29 /tmp/f add\n554 /tmp/f open\n558 /tmp/f read 61440 4096\n"
      "824 /tmp/f read 774144 4096\n1096 /tmp/f write 491520 4096\n2259 /tmp/f close\n";
  ImportOptions o;
  o.qd_without_completions = 2;
  auto t = ParseFioIolog(log, "fio3", o);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->records, (std::vector<TraceRecord>{
                            {TraceOp::kRead, 61440, 4096, -1, Nanos(0)},
                            {TraceOp::kRead, 774144, 4096, -1, Nanos(0)},
                            {TraceOp::kWrite, 491520, 4096, 0, Nanos(0)},
                        }));
  EXPECT_EQ(ParseFioIolog("fio version 9 iolog\n", "x").status().code(),
            Status::Code::kInvalidArgument);
  auto bad = ParseFioIolog("fio version 2 iolog\n/dev/x frobnicate 0 1\n", "x");
  EXPECT_NE(bad.status().message().find("frobnicate"), std::string::npos);
}

TEST(FioIologImportTest, TiercachedRecordFlushesWithoutExtent) {
  // `tiercached --record` writes "sync" without offset and length.
  auto t = ParseFioIolog(
      "fio version 3 iolog\n0 volume add\n0 volume open\n3 volume write 4096 8192\n"
      "4 volume sync\n5 volume read 0 4096\n9 volume close\n",
      "rec");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->records, (std::vector<TraceRecord>{
                            {TraceOp::kWrite, 4096, 8192, -1, Nanos(0)},
                            {TraceOp::kFlush, 0, 0, 0, Nanos(0)},
                            {TraceOp::kRead, 0, 4096, 1, Nanos(0)},
                        }));
}

TEST(MsrImportTest, FiletimeTicksAndResponseTimes) {
  const char* csv =
      "128166372003061629,hm,1,Read,7014609920,24576,41286\n"
      "128166372003161629,hm,1,Write,1317441536,8192,1963\n"
      "128166372003261629,hm,0,Read,3154132992,4096,10000\n"
      "128166372016382155,hm,1,Read,7014634496,4096,500\n";
  ImportOptions o;
  o.device = "1";
  auto t = ParseMsrCsv(csv, "hm_1", o);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->records,
            (std::vector<TraceRecord>{
                // issue 0, completes at 4.1286 ms
                {TraceOp::kRead, 7014609920ull, 24576, -1, Nanos(0)},
                // issue 10 ms (100000 ticks): the first completed at 4.1286 ms
                {TraceOp::kWrite, 1317441536ull, 8192, 0, Nanos(10000000 - 4128600)},
                // issue 1.332 s: 1.33 s idle after the write's completion, capped at 1 s
                {TraceOp::kRead, 7014634496ull, 4096, 1, std::chrono::seconds(1)},
            }));
  EXPECT_EQ(ParseMsrCsv("1,2,3\n", "x").status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(ParseMsrCsv("1,h,0,Trim,0,4096,1\n", "x").status().code(),
            Status::Code::kInvalidArgument);
  // A header line is skipped.
  auto h = ParseMsrCsv("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
                       "5,h,0,Read,0,4096,1\n", "x");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->records.size(), 1u);
}

// Time order, not file order: a request stamped before the file's first line is issued first.
TEST(MsrImportTest, UnsortedTimestampsAreReplayedInTimeOrder) {
  auto t = ParseMsrCsv("200,h,0,Read,0,4096,10\n100,h,0,Read,8192,4096,10\n"
                       "300,h,0,Write,4096,4096,10\n", "x");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->records, (std::vector<TraceRecord>{
                            {TraceOp::kRead, 8192, 4096, -1, Nanos(0)},
                            {TraceOp::kRead, 0, 4096, 0, Nanos(10000 - 1000)},
                            {TraceOp::kWrite, 4096, 4096, 1, Nanos(10000 - 1000)},
                        }));
  // Only a first line whose Timestamp is not a number is a header.
  EXPECT_EQ(ParseMsrCsv("5,h,0,Read,x,4096,1\n6,h,0,Read,0,4096,1\n", "x").status().ToString(),
            "InvalidArgument: MSR CSV line 1: bad number");
}

// Offsets past 64 PiB, and offset + length wrapping 2^64, name their line in every format.
TEST(TraceImportTest, ExtentsPastTheLargestVolumeAreRefused) {
  EXPECT_EQ(ParseMsrCsv("1,h,0,Read,0,4096,1\n2,h,0,Read,18446744073709547520,4096,1\n", "x")
                .status()
                .ToString(),
            "InvalidArgument: MSR CSV line 2: offset 18446744073709547520 + length 4096 ends "
            "past 64 PiB, the largest volume a trace may address");
  EXPECT_EQ(ParseMsrCsv("1,h,0,Read,72057594037923840,4096,1\n", "x").status().code(),
            Status::Code::kOk);  // ends exactly at 64 PiB
  EXPECT_EQ(ParseFioIolog("fio version 2 iolog\nf add\nf read 72057594037927936 1\n", "x")
                .status()
                .ToString(),
            "InvalidArgument: fio iolog line 3: offset 72057594037927936 + length 1 ends past 64 "
            "PiB, the largest volume a trace may address");
  EXPECT_EQ(ParseBlkparse("  8,0 0 1 0.1 1 D R 36028797018963967 + 8 [a]\n", "x")
                .status()
                .ToString(),
            "InvalidArgument: blkparse line 1: sector 36028797018963967 + 8 ends past 64 PiB");
  EXPECT_EQ(ParseBlkparse("  8,0 0 1 0.1 1 D R 140737488355324 + 8 [a]\n", "x")
                .status()
                .ToString(),
            "InvalidArgument: blkparse line 1: sector 140737488355324 + 8 ends past 64 PiB");
  EXPECT_TRUE(ParseBlkparse("  8,0 0 1 0.1 1 D R 140737488355320 + 8 [a]\n", "x").ok());
  EXPECT_EQ(ParseFioIolog("fio version 2 iolog\nf add\nf read 0\n", "x").status().ToString(),
            "InvalidArgument: fio iolog line 3: expected FILE ACTION [OFFSET LENGTH]");
}

TEST(TraceImportTest, FileFormatsAndErrors) {
  EXPECT_EQ(ImportTraceFile("blkparse", "/nonexistent", "x").status().ToString(),
            "NotFound: cannot read trace file /nonexistent: No such file or directory");
  EXPECT_EQ(ImportTraceFile("tar", "/dev/null", "x").status().code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(ImportTraceFile("msr", "/tmp", "x").status().ToString(),
            "InvalidArgument: cannot read trace file /tmp: it is a directory");
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, std::string_view bytes) {
    const std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  };
  const std::string gz = write("trace_import_test.csv.gz", std::string("\x1f\x8b\x08\x00", 4));
  EXPECT_EQ(ImportTraceFile("msr", gz, "x").status().ToString(),
            "InvalidArgument: " + gz + ": gzip-compressed; decompress it first (gunzip)");
  // Parse errors name the file; a UTF-8 byte order mark does not cost the first request.
  const std::string bad = write("trace_import_test_bad.csv", "1,2,3\n");
  EXPECT_EQ(ImportTraceFile("msr", bad, "x").status().ToString(),
            "InvalidArgument: " + bad + ": MSR CSV line 1: expected 7 fields");
  const std::string bom = write("trace_import_test_bom.csv",
                                "\xEF\xBB\xBF" "1,h,0,Read,0,4096,1\n2,h,0,Read,4096,4096,1\n");
  auto t = ImportTraceFile("msr", bom, "x");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->records.size(), 2u);
}

}  // namespace
}  // namespace tiercache::bench
