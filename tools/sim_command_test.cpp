// `tiercache sim`: argument parsing (usage errors in the engine's and the size parser's words) and
// one end-to-end run writing the text, JSON and HTML reports.
#include "tools/sim_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tools/exit_codes.h"

namespace tiercache {
namespace {

struct Parsed {
  ParsedSimArgs parsed;
  std::string out, err;
};

Parsed Parse(std::vector<std::string> args) {
  std::ostringstream out, err;
  Parsed p{ParseSimArgs(args, out, err), "", ""};
  p.out = out.str();
  p.err = err.str();
  return p;
}

TEST(SimCommandTest, ParsesEveryOption) {
  Parsed p = Parse({"--trace", "msr:/t/a.csv", "--trace", "b=fio:/t/b.log", "--cache-size",
                    "16M,32M", "--admission", "always", "--replacement", "lru,sieve", "--mode",
                    "wb", "--shards", "1", "--seq-cutoff", "0", "--json", "o.json", "--report",
                    "o.html", "-q"});
  ASSERT_TRUE(p.parsed.command) << p.err;
  const SimCommandLine& c = *p.parsed.command;
  ASSERT_EQ(c.sim.traces.size(), 2u);
  EXPECT_EQ(c.sim.traces[0].name, "a");
  EXPECT_EQ(c.sim.traces[1].name, "b");
  EXPECT_EQ(c.sim.traces[1].format, "fio");
  EXPECT_EQ(c.sim.cache_bytes, (std::vector<uint64_t>{16 << 20, 32 << 20}));
  EXPECT_EQ(c.sim.replacements, (std::vector<std::string>{"lru", "sieve"}));
  EXPECT_EQ(c.sim.mode, CacheMode::kWriteBack);
  EXPECT_EQ(c.sim.shards, 1u);
  ASSERT_TRUE(c.sim.sequential);
  EXPECT_FALSE(c.sim.sequential->enabled);
  EXPECT_EQ(c.json_path, "o.json");
  EXPECT_EQ(c.report_path, "o.html");
  EXPECT_TRUE(c.quiet);
}

TEST(SimCommandTest, DefaultsAreTheEngines) {
  Parsed p = Parse({"--trace", "msr:a.csv", "--cache-size", "1G"});
  ASSERT_TRUE(p.parsed.command) << p.err;
  const bench::SimOptions& o = p.parsed.command->sim;
  EXPECT_EQ(o.admissions, std::vector<std::string>{PolicyOptions{}.admission});
  EXPECT_EQ(o.replacements, std::vector<std::string>{PolicyOptions{}.replacement});
  EXPECT_EQ(o.shards, CacheOptions{}.shards);
  EXPECT_FALSE(o.sequential);
}

TEST(SimCommandTest, UnknownPolicyIsAUsageErrorInTheEnginesWords) {
  Parsed p = Parse({"--trace", "msr:a.csv", "--cache-size", "1G", "--replacement", "lru,mru"});
  EXPECT_FALSE(p.parsed.command);
  EXPECT_EQ(p.parsed.exit_code, kExitUsage);
  PolicyOptions engine;
  engine.replacement = "mru";
  EXPECT_EQ(p.err, "tiercache sim: " + engine.validate().message() + "\n");
}

TEST(SimCommandTest, BadSizesAreUsageErrors) {
  Parsed p = Parse({"--trace", "msr:a.csv", "--cache-size", "1G,12Q"});
  EXPECT_EQ(p.parsed.exit_code, kExitUsage);
  EXPECT_EQ(p.err, "tiercache sim: --cache-size: invalid size '12Q': unknown suffix 'Q' (use K, "
                   "M, G or T; powers of 1024)\n");
  p = Parse({"--trace", "msr:a.csv", "--cache-size", "100000"});
  EXPECT_EQ(p.parsed.exit_code, kExitUsage);
  EXPECT_EQ(p.err, "tiercache sim: cache size 100000 is not a multiple of 4096 bytes\n");
  p = Parse({"--trace", "msr:a.csv", "--cache-size", "32K"});
  EXPECT_EQ(p.err,
            "tiercache sim: cache size 32768 is below the minimum of 65536 bytes (16 lines)\n");
  p = Parse({"--trace", "msr:a.csv", "--cache-size", "1M", "--seq-cutoff", "1000"});
  EXPECT_EQ(p.parsed.exit_code, kExitUsage);
  EXPECT_NE(p.err.find("tiercache sim: "), std::string::npos);
}

TEST(SimCommandTest, MissingTraceHelpAndBadFormat) {
  Parsed p = Parse({"--cache-size", "1M"});
  EXPECT_EQ(p.parsed.exit_code, kExitUsage);
  EXPECT_NE(p.err.find("--trace is required"), std::string::npos) << p.err;
  p = Parse({"--help"});
  EXPECT_EQ(p.parsed.exit_code, kExitOk);
  EXPECT_NE(p.out.find("--cache-size"), std::string::npos);
  p = Parse({"--trace", "csv:a.csv", "--cache-size", "1M"});
  EXPECT_EQ(p.err, "tiercache sim: --trace: trace 'csv:a.csv': unknown format 'csv' (blkparse, "
                   "fio, msr)\n");
}

TEST(SimCommandTest, SetGivesTheAdaptivePolicyKnobs) {
  Parsed p = Parse({"--trace", "msr:a.csv", "--cache-size", "1G", "--admission", "always,adaptive",
                    "--set", "margin=0.08,surge_end_ratio=1.25", "--set", "young_bar=0"});
  ASSERT_TRUE(p.parsed.command) << p.err;
  const std::vector<std::string> knobs = {"margin=0.08", "surge_end_ratio=1.25", "young_bar=0"};
  EXPECT_EQ(p.parsed.command->sim.adaptive_knobs, knobs);
  const std::vector<bench::SimCase> cases = p.parsed.command->sim.cases();
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_TRUE(cases[0].policies().adaptive_knobs.empty());  // always has no knobs
  EXPECT_EQ(cases[1].policies().adaptive_knobs, knobs);
  EXPECT_FALSE(cases[1].is_default_policy());  // a variant of the default is not the default
}

TEST(SimCommandTest, BadKnobsAreUsageErrors) {
  Parsed p = Parse({"--trace", "msr:a.csv", "--cache-size", "1G", "--set", "margin=-1"});
  EXPECT_EQ(p.parsed.exit_code, kExitUsage);
  EXPECT_EQ(p.err, "tiercache sim: --set: 'margin=-1': must be in [0, 1000000]\n");
  p = Parse({"--trace", "msr:a.csv", "--cache-size", "1G", "--set", "marg=1"});
  EXPECT_EQ(p.parsed.exit_code, kExitUsage);
  EXPECT_EQ(p.err.rfind("tiercache sim: --set: 'marg=1': unknown adaptive knob (known: window, "
                        "min_return, margin, ",
                        0),
            0u)
      << p.err;
  p = Parse({"--trace", "msr:a.csv", "--cache-size", "1G", "--admission", "always", "--set",
             "margin=0.1"});
  EXPECT_EQ(p.parsed.exit_code, kExitUsage);
  EXPECT_EQ(p.err, "tiercache sim: --set: knobs of the adaptive policy, which --admission does "
                   "not run\n");
}

// A directory with loop.csv: reads of blocks 0..16 then 0, then a write of block 2 (19
// accesses); removed with the object.
struct LoopTrace {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sim_command_test_" + std::to_string(getpid()));
  LoopTrace() {
    std::filesystem::create_directories(dir);
    std::ofstream csv(dir / "loop.csv");
    csv << "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n";
    for (int i = 0; i <= 17; ++i) csv << 1000 + i << ",h,0,Read," << (i % 17) * 4096 << ",4096,0\n";
    csv << 2000 << ",h,0,Write," << 2 * 4096 << ",4096,0\n";
  }
  ~LoopTrace() { std::filesystem::remove_all(dir); }
  std::string spec() const { return "msr:" + (dir / "loop.csv").string(); }
};

// 16-line LRU cache, one shard. Reads of blocks 0..16 then 0 all miss (a loop one block larger
// than the cache is LRU's worst case): 16 evicts 0, and 0 evicts 1. Then a write of block 2
// hits (LRU order 2..16 0). 19 accesses, 18 misses.
TEST(SimCommandTest, RunsAndWritesTheReports) {
  const LoopTrace trace;
  const std::filesystem::path& dir = trace.dir;
  Parsed p = Parse({"--trace", trace.spec(), "--cache-size", "64K",
                    "--admission", "always", "--replacement", "lru", "--shards", "1", "--seq-cutoff", "0", "--json",
                    (dir / "o.json").string(), "--report", (dir / "o.html").string()});
  ASSERT_TRUE(p.parsed.command) << p.err;
  std::ostringstream out, err;
  CommandIo io{out, err};
  ASSERT_EQ(RunSimCommand(*p.parsed.command, io), kExitOk) << err.str();
  EXPECT_NE(out.str().find("loop ("), std::string::npos);
  EXPECT_EQ(err.str().rfind("sim: loop 64 KiB always/lru: miss ratio 0.9474 (", 0), 0u) << err.str();
  std::ifstream json_file(dir / "o.json");
  const nlohmann::json j = nlohmann::json::parse(json_file);
  const nlohmann::json& r = j["traces"][0]["results"][0];
  EXPECT_EQ(j["traces"][0]["trace"], "loop");
  EXPECT_EQ(j["traces"][0]["file"], (dir / "loop.csv").string());
  EXPECT_EQ(r["block_accesses"], 19);
  EXPECT_EQ(r["block_misses"], 18);
  EXPECT_EQ(r["ssd_bytes_written"], 19 * 4096);  // 18 fills and the write hit's update
  EXPECT_EQ(r["hdd_bytes_read"], 18 * 4096);
  EXPECT_EQ(r["requests"], 19);
  std::ifstream html(dir / "o.html");
  std::stringstream page;
  page << html.rdbuf();
  EXPECT_NE(page.str().find("<polyline"), std::string::npos);
}

// The same loop under adaptive admission (LRU, one shard, no bypass). By default the 16-line
// cache refuses block 16: a first miss, once the fill's 16 misses read as not back (ratio (0 + 2)
// / (16 + 4) under the bar 0.3), and 0 and 2 then hit: 17 misses, 16 fills and the write.
// With probe_interval=1 the refusal is admitted as a probe, and the run is always's: 18 misses.
TEST(SimCommandTest, SetChangesTheAdaptivePolicyOfTheRun) {
  const LoopTrace trace;
  for (const bool probe_each : {false, true}) {
    std::vector<std::string> args = {"--trace", trace.spec(), "--cache-size", "64K",
                                     "--admission", "adaptive", "--replacement", "lru",
                                     "--shards", "1", "--seq-cutoff", "0", "--json",
                                     (trace.dir / "o.json").string(), "-q"};
    if (probe_each) args.insert(args.end(), {"--set", "probe_interval=1"});
    Parsed p = Parse(args);
    ASSERT_TRUE(p.parsed.command) << p.err;
    std::ostringstream out, err;
    CommandIo io{out, err};
    ASSERT_EQ(RunSimCommand(*p.parsed.command, io), kExitOk) << err.str();
    std::ifstream json_file(trace.dir / "o.json");
    const nlohmann::json r = nlohmann::json::parse(json_file)["traces"][0]["results"][0];
    const nlohmann::json& admission = r["policy_counters"]["admission"];
    EXPECT_EQ(r["block_misses"], probe_each ? 18 : 17) << probe_each;
    EXPECT_EQ(r["ssd_bytes_written"], (probe_each ? 19 : 17) * 4096) << probe_each;
    EXPECT_EQ(admission["refused"], probe_each ? 0 : 1) << probe_each;
    EXPECT_EQ(admission["probes"], probe_each ? 1 : 0) << probe_each;
    EXPECT_EQ(r.contains("adaptive_knobs"), probe_each) << probe_each;
  }
}

}  // namespace
}  // namespace tiercache
