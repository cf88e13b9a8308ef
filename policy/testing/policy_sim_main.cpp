// policy_sim: runs the trace families through admission x replacement combinations and the
// textbook reference caches (LRU, ARC, LIRS, S3-FIFO, SIEVE, all admitting every miss), printing
// miss ratios and SSD block writes per family, then per group: SSD writes against admission
// "always" and the worst miss-ratio gap to the best textbook cache and to textbook LRU.
//   policy_sim [--cache BLOCKS] [--seed N] [--family NAME]... [--variants]
//              [--admission a,b] [--replacement a,b] [--no-reference] [--set knob=value]...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "policy/admission/adaptive_admission.h"
#include "policy/admission/adaptive_tuning.h"
#include "policy/admission/admission_factory.h"
#include "policy/replacement/replacement_factory.h"
#include "policy/testing/policy_simulator.h"
#include "policy/testing/reference_caches.h"
#include "policy/testing/trace_families.h"

namespace tiercache {
namespace {

struct ReplacementMaker {
  const char* name;
  std::unique_ptr<ReplacementPolicy> (*make)(uint32_t capacity);
};

// Every replacement policy of the branch; a new one is one more line here.
// Every engine replacement policy, through the engine's own factory.
std::unique_ptr<ReplacementPolicy> MakeNamed(const char* name, uint32_t c) {
  return std::move(MakeReplacementPolicy(ReplacementOptions{.name = name}, c)).value();
}
const ReplacementMaker kReplacements[] = {
    {"lru", [](uint32_t c) { return MakeNamed("lru", c); }},
    {"s3fifo", [](uint32_t c) { return MakeNamed("s3fifo", c); }},
    {"clock", [](uint32_t c) { return MakeNamed("clock", c); }},
    {"sieve", [](uint32_t c) { return MakeNamed("sieve", c); }},
    {"epoch-lru", [](uint32_t c) { return MakeNamed("epoch-lru", c); }},
};

struct ReferenceMaker {
  const char* name;
  std::unique_ptr<CacheModel> (*make)(uint32_t capacity);
};

const ReferenceMaker kReferences[] = {
    {"lru", MakeLruReference},       {"arc", MakeArcReference},     {"lirs", MakeLirsReference},
    {"s3fifo", MakeS3FifoReference}, {"sieve", MakeSieveReference},
};

struct Config {
  uint32_t cache = 16384;
  uint64_t seed = 1;
  std::vector<std::string> families, admissions = {"always", "nhit", "adaptive"}, replacements;
  bool variants = false;  // also run the FamilyGroup::kVariant families
  bool references = true;
  AdaptiveAdmission::Params params;
  bool params_set = false;  // --set given: build adaptive from `params`, not the factory
};

struct Outcome {
  double miss_ratio = 0;
  uint64_t writes = 0;
};

Outcome Run(CacheModel& model, const std::vector<uint64_t>& trace) {
  uint64_t misses = 0;
  for (uint64_t block : trace) misses += !model.access(block);
  return Outcome{static_cast<double>(misses) / trace.size(), model.ssd_writes()};
}

std::vector<std::string> SplitCommas(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// Tuning: --set KNOB=VALUE overrides one AdaptiveAdmission::Params field (AdaptiveTuning).
bool SetParam(Config& config, const std::string& assignment) {
  if (Status s = ApplyAdaptiveKnob(assignment, config.params); !s.ok()) {
    std::fprintf(stderr, "policy_sim: --set %s\n", s.message().c_str());
    return false;
  }
  config.params_set = true;
  return true;
}

bool ParseArgs(int argc, char** argv, Config& config) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--no-reference") {
      config.references = false;
    } else if (arg == "--variants") {
      config.variants = true;
    } else if (!has_value) {
      return false;
    } else if (arg == "--cache") {
      config.cache = std::strtoul(argv[++i], nullptr, 10);
    } else if (arg == "--seed") {
      config.seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--family") {
      config.families.push_back(argv[++i]);
    } else if (arg == "--admission") {
      config.admissions = SplitCommas(argv[++i]);
    } else if (arg == "--replacement") {
      config.replacements = SplitCommas(argv[++i]);
    } else if (arg == "--set") {
      if (!SetParam(config, argv[++i])) return false;
    } else {
      return false;
    }
  }
  return config.cache >= 16;
}

const ReplacementMaker* FindReplacement(const std::string& name) {
  for (const ReplacementMaker& maker : kReplacements) {
    if (name == maker.name) return &maker;
  }
  return nullptr;
}

std::unique_ptr<AdmissionPolicy> MakeAdmission(const Config& config, const std::string& name) {
  if (name == "adaptive" && config.params_set) {
    return std::make_unique<AdaptiveAdmission>(config.cache, config.params);
  }
  AdmissionOptions options;
  options.name = name;
  auto made = MakeAdmissionPolicy(options, config.cache);
  if (!made.ok()) {
    std::fprintf(stderr, "policy_sim: %s\n", made.status().message().c_str());
    std::exit(2);
  }
  return std::move(made).value();
}

// Per group and row label: SSD writes, and the worst miss-ratio gaps over the group's families.
struct Totals {
  uint64_t writes = 0;
  double worst_vs_best = -1, worst_vs_lru = -1;
};
using Summary = std::map<FamilyGroup, std::map<std::string, Totals>>;

void PrintCounters(const AdmissionPolicy& admission) {
  admission.visit_counters([](std::string_view name, uint64_t value) {
    std::printf(" %.*s=%lu", static_cast<int>(name.size()), name.data(),
                static_cast<unsigned long>(value));
  });
  std::printf("\n");
}

// The textbook caches' best miss ratio and LRU's (both 2 when references are off).
std::pair<double, double> RunReferences(const Config& config, const std::vector<uint64_t>& trace) {
  double best = 2, lru = 2;
  if (!config.references) return {best, lru};
  for (const ReferenceMaker& ref : kReferences) {
    auto model = ref.make(config.cache);
    const Outcome out = Run(*model, trace);
    std::printf("  %-22s %8.4f %12lu\n", (std::string("textbook ") + ref.name).c_str(),
                out.miss_ratio, static_cast<unsigned long>(out.writes));
    best = std::min(best, out.miss_ratio);
    if (std::string_view(ref.name) == "lru") lru = out.miss_ratio;
  }
  return {best, lru};
}

void RunFamily(const Config& config, const TraceFamily& family, Summary& summary) {
  const std::vector<uint64_t> trace = family.generate(config.cache, config.seed);
  std::printf("\n%.*s (C = %u blocks, %zu accesses): %.*s\n",
              static_cast<int>(family.name.size()), family.name.data(), config.cache,
              trace.size(), static_cast<int>(family.description.size()),
              family.description.data());
  std::printf("  %-22s %8s %12s %8s %8s\n", "model", "miss", "ssd_writes", "vs_best", "vs_lru");
  const auto [best, lru] = RunReferences(config, trace);
  for (const std::string& repl : config.replacements) {
    for (const std::string& adm : config.admissions) {
      PolicySimulator sim(config.cache, FindReplacement(repl)->make(config.cache),
                          MakeAdmission(config, adm));
      const Outcome out = Run(sim, trace);
      const std::string label = adm + "+" + repl;
      const double vs_best = best <= 1 ? out.miss_ratio - best : 0;
      const double vs_lru = lru <= 1 ? out.miss_ratio - lru : 0;
      std::printf("  %-22s %8.4f %12lu %+8.4f %+8.4f ", label.c_str(), out.miss_ratio,
                  static_cast<unsigned long>(out.writes), vs_best, vs_lru);
      PrintCounters(sim.admission());
      Totals& totals = summary[family.group][label];
      totals.writes += out.writes;
      totals.worst_vs_best = std::max(totals.worst_vs_best, vs_best);
      totals.worst_vs_lru = std::max(totals.worst_vs_lru, vs_lru);
    }
  }
}

void PrintSummary(const Summary& summary) {
  const char* kGroupNames[] = {"target families", "guard family", "variant families"};
  for (const auto& [group, rows] : summary) {
    std::printf("\nsummary over the %s\n  %-22s %12s %10s %12s %12s\n",
                kGroupNames[static_cast<int>(group)], "model", "ssd_writes", "vs_always",
                "worst_best", "worst_lru");
    for (const auto& [label, totals] : rows) {
      const auto always = rows.find("always" + label.substr(label.find('+')));
      const double share = always != rows.end() && always->second.writes
                               ? 1.0 * totals.writes / always->second.writes
                               : 0;
      std::printf("  %-22s %12lu %9.1f%% %+12.4f %+12.4f\n", label.c_str(),
                  static_cast<unsigned long>(totals.writes), 100 * share, totals.worst_vs_best,
                  totals.worst_vs_lru);
    }
  }
}

bool Wanted(const Config& config, const TraceFamily& family) {
  if (config.families.empty()) return config.variants || family.group != FamilyGroup::kVariant;
  return std::find(config.families.begin(), config.families.end(), family.name) !=
         config.families.end();
}

int Main(int argc, char** argv) {
  Config config;
  if (!ParseArgs(argc, argv, config)) {
    std::fprintf(stderr,
                 "usage: policy_sim [--cache BLOCKS>=16] [--seed N] [--family NAME]... "
                 "[--variants] [--admission a,b] [--replacement a,b] [--no-reference] "
                 "[--set knob=value]...\n");
    return 2;
  }
  if (config.replacements.empty()) {
    for (const ReplacementMaker& maker : kReplacements) config.replacements.push_back(maker.name);
  }
  for (const std::string& name : config.replacements) {
    if (FindReplacement(name)) continue;
    std::fprintf(stderr, "policy_sim: unknown replacement policy '%s'\n", name.c_str());
    return 2;
  }
  Summary summary;
  for (const TraceFamily& family : TraceFamilies()) {
    if (Wanted(config, family)) RunFamily(config, family, summary);
  }
  PrintSummary(summary);
  return 0;
}

}  // namespace
}  // namespace tiercache

int main(int argc, char** argv) { return tiercache::Main(argc, argv); }
