#include "bench/workloads/synthetic_tests.h"

#include <algorithm>

#include "bench/workloads/rng.h"
#include "bench/workloads/text_fields.h"

namespace tiercache::bench {
namespace {

// Parses "<n>K" / "<n>M" into bytes.
std::optional<uint64_t> ParseBlock(std::string_view s) {
  if (s.size() < 2) return std::nullopt;
  const char unit = s.back();
  auto n = ParseU64(s.substr(0, s.size() - 1));
  if (!n || *n == 0) return std::nullopt;
  if (unit == 'K') return *n * 1024;
  if (unit == 'M') return *n * 1024 * 1024;
  return std::nullopt;
}

std::optional<SyntheticTest> ParseCdmTest(std::string_view t) {
  // (SEQ|RND)<block>-Q<q>T<t>-(read|write)
  auto parts = SplitChar(t, '-');
  if (parts.size() != 3 || parts[0].size() < 5) return std::nullopt;
  SyntheticTest out;
  const std::string_view kind = parts[0].substr(0, 3);
  if (kind != "SEQ" && kind != "RND") return std::nullopt;
  out.sequential = kind == "SEQ";
  auto block = ParseBlock(parts[0].substr(3));
  const size_t tpos = parts[1].find('T');
  if (!block || parts[1].empty() || parts[1][0] != 'Q' || tpos == std::string_view::npos) {
    return std::nullopt;
  }
  auto q = ParseU64(parts[1].substr(1, tpos - 1));
  auto th = ParseU64(parts[1].substr(tpos + 1));
  if (!q || !th || *q == 0 || *th == 0 || *q * *th > 4096) return std::nullopt;
  if (parts[2] != "read" && parts[2] != "write") return std::nullopt;
  out.block = *block;
  out.queue_depth = static_cast<uint32_t>(*q);
  out.threads = static_cast<uint32_t>(*th);
  out.write = parts[2] == "write";
  return out;
}

}  // namespace

Result<SyntheticTest> ParseSyntheticTest(std::string_view name) {
  const size_t colon = name.find(':');
  const std::string bad = "bad synthetic test name '" + std::string(name) +
                          "' (want e.g. cdm:RND4K-Q32T1-read or asssd:4K-64Thrd-write)";
  if (colon == std::string_view::npos || colon == 0) return Status::InvalidArgument(bad);
  std::string_view test = name.substr(colon + 1);
  std::optional<SyntheticTest> t;
  if (test == "4K-64Thrd-read" || test == "4K-64Thrd-write") {
    t = SyntheticTest{"", false, 4096, 1, 64, test.ends_with("write")};
  } else {
    t = ParseCdmTest(test);
  }
  if (!t) return Status::InvalidArgument(bad);
  t->name = std::string(name);
  return *t;
}

std::vector<SyntheticTest> CrystalDiskMarkTests(std::string_view prefix) {
  std::vector<SyntheticTest> out;
  for (const char* t : {"SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1"}) {
    for (const char* rw : {"read", "write"}) {
      out.push_back(
          ParseSyntheticTest(std::string(prefix) + ":" + t + "-" + rw).value());
    }
  }
  return out;
}

std::vector<SyntheticTest> AsSsdTests() {
  return {ParseSyntheticTest("asssd:4K-64Thrd-read").value(),
          ParseSyntheticTest("asssd:4K-64Thrd-write").value()};
}

Trace MakeSyntheticTrace(const SyntheticTest& test, const SyntheticArea& area, uint64_t seed,
                         uint32_t pass) {
  Trace trace;
  trace.name = test.name;
  const TraceOp op = test.write ? TraceOp::kWrite : TraceOp::kRead;
  const uint64_t blocks = std::max<uint64_t>(1, area.bytes / test.block);
  if (test.sequential) {
    const uint64_t bytes = area.sequential_bytes ? area.sequential_bytes : area.bytes;
    const uint64_t n = std::max<uint64_t>(1, bytes / test.block);
    for (uint64_t i = 0; i < n; ++i) {
      trace.records.push_back({op, area.offset + (i % blocks) * test.block, test.block});
    }
  } else {
    Rng rng(SeedFor(seed, test.name.c_str(), pass));
    for (uint64_t i = 0; i < area.random_ops; ++i) {
      trace.records.push_back({op, area.offset + rng.below(blocks) * test.block, test.block});
    }
  }
  SetQueueDepth(&trace.records, test.queue_depth * test.threads);
  return trace;
}

Trace MakePreparationTrace(const SyntheticArea& area) {
  Trace trace;
  trace.name = "prepare";
  const uint64_t mib = 1ull << 20;
  for (uint64_t off = 0; off < area.bytes; off += mib) {
    trace.records.push_back(
        {TraceOp::kWrite, area.offset + off, std::min(mib, area.bytes - off)});
  }
  SetQueueDepth(&trace.records, 8);
  return trace;
}

}  // namespace tiercache::bench
