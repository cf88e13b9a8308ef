// policy_sim: runs the trace families through admission x replacement combinations and the textbook
// reference caches, and prints miss ratios and SSD block writes per family plus a summary.
//   policy_sim [--cache BLOCKS] [--seed N] [--family NAME]... [--admission a,b] [--replacement a,b]
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "policy/admission/adaptive_admission.h"
#include "policy/admission/admission_factory.h"
#include "policy/replacement/lru_policy.h"
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
const ReplacementMaker kReplacements[] = {
    {"lru", [](uint32_t c) -> std::unique_ptr<ReplacementPolicy> {
       return std::make_unique<LruPolicy>(c);
     }},
};

struct ReferenceMaker {
  const char* name;
  std::unique_ptr<CacheModel> (*make)(uint32_t capacity);
};

const ReferenceMaker kReferences[] = {
    {"lru", MakeLruReference},     {"arc", MakeArcReference},     {"lirs", MakeLirsReference},
    {"s3fifo", MakeS3FifoReference}, {"sieve", MakeSieveReference},
};

struct Config {
  uint32_t cache = 16384;
  uint64_t seed = 1;
  std::vector<std::string> families, admissions = {"always", "nhit", "adaptive"}, replacements;
  bool references = true;
  AdmissionOptions options;
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

// Tuning: --set knob=value overrides one AdaptiveAdmission::Params field.
bool SetParam(Config& config, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos) return false;
  const std::string key = assignment.substr(0, eq);
  const double value = std::atof(assignment.c_str() + eq + 1);
  AdaptiveAdmission::Params& p = config.params;
  const std::map<std::string, std::function<void(double)>> setters = {
      {"window", [&](double v) { p.window = v; }},
      {"min_return", [&](double v) { p.min_return = v; }},
      {"eviction_prior", [&](double v) { p.eviction_prior = v; }},
      {"probe_interval", [&](double v) { p.probe_interval = static_cast<uint32_t>(v); }},
      {"miss_halving", [&](double v) { p.miss_halving = v; }},
      {"eviction_halving", [&](double v) { p.eviction_halving = v; }},
      {"frequency_halving", [&](double v) { p.frequency_halving = v; }},
      {"sample_shift", [&](double v) { p.sample_shift = static_cast<int>(v); }},
  };
  const auto it = setters.find(key);
  if (it == setters.end()) return false;
  it->second(value);
  config.params_set = true;
  return true;
}

bool ParseArgs(int argc, char** argv, Config& config) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--no-reference") {
      config.references = false;
    } else if (!next) {
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
  AdmissionOptions options = config.options;
  options.name = name;
  auto made = MakeAdmissionPolicy(options, config.cache);
  if (!made.ok()) {
    std::fprintf(stderr, "policy_sim: %s\n", made.status().message().c_str());
    std::exit(2);
  }
  return std::move(made).value();
}

// Totals over the target families, per row label.
struct Totals {
  std::map<std::string, uint64_t> writes;
  std::map<std::string, double> worst_gap;  // miss ratio above the best textbook cache
};

void RunFamily(const Config& config, const TraceFamily& family, Totals& totals) {
  const std::vector<uint64_t> trace = family.generate(config.cache, config.seed);
  std::printf("\n%s (C = %u blocks, %zu accesses): %.*s\n", std::string(family.name).c_str(),
              config.cache, trace.size(), static_cast<int>(family.description.size()),
              family.description.data());
  std::printf("  %-22s %8s %12s %9s\n", "model", "miss", "ssd_writes", "vs_best");
  double best = 2;
  std::string best_name;
  if (config.references) {
    for (const ReferenceMaker& ref : kReferences) {
      auto model = ref.make(config.cache);
      const Outcome out = Run(*model, trace);
      std::printf("  %-22s %8.4f %12lu\n", (std::string("textbook ") + ref.name).c_str(),
                  out.miss_ratio, static_cast<unsigned long>(out.writes));
      if (out.miss_ratio < best) best = out.miss_ratio, best_name = ref.name;
    }
  }
  for (const std::string& repl : config.replacements) {
    for (const std::string& adm : config.admissions) {
      PolicySimulator sim(config.cache, FindReplacement(repl)->make(config.cache),
                          MakeAdmission(config, adm));
      const Outcome out = Run(sim, trace);
      const std::string label = adm + "+" + repl;
      const double gap = best <= 1 ? out.miss_ratio - best : 0;
      std::printf("  %-22s %8.4f %12lu %+9.4f ", label.c_str(), out.miss_ratio,
                  static_cast<unsigned long>(out.writes), gap);
      sim.admission().visit_counters([](std::string_view name, uint64_t value) {
        std::printf(" %.*s=%lu", static_cast<int>(name.size()), name.data(),
                    static_cast<unsigned long>(value));
      });
      std::printf("\n");
      if (!family.target) continue;
      totals.writes[label] += out.writes;
      totals.worst_gap[label] = std::max(totals.worst_gap[label], gap);
    }
  }
}

void PrintSummary(const Config& config, const Totals& totals) {
  std::printf("\nsummary over target families\n  %-22s %12s %12s %12s\n", "model", "ssd_writes",
              "vs_always", "worst_gap");
  for (const auto& [label, writes] : totals.writes) {
    const std::string always = "always" + label.substr(label.find('+'));
    const auto it = totals.writes.find(always);
    const double share = it != totals.writes.end() && it->second ? 1.0 * writes / it->second : 0;
    std::printf("  %-22s %12lu %11.1f%% %+12.4f\n", label.c_str(),
                static_cast<unsigned long>(writes), 100 * share, totals.worst_gap.at(label));
  }
}

int Main(int argc, char** argv) {
  Config config;
  if (!ParseArgs(argc, argv, config)) {
    std::fprintf(stderr,
                 "usage: policy_sim [--cache BLOCKS>=16] [--seed N] [--family NAME]... "
                 "[--admission a,b] [--replacement a,b] [--no-reference] [--set knob=value]\n");
    return 2;
  }
  if (config.replacements.empty()) {
    for (const ReplacementMaker& maker : kReplacements) config.replacements.push_back(maker.name);
  }
  for (const std::string& name : config.replacements) {
    if (!FindReplacement(name)) return std::fprintf(stderr, "unknown replacement %s\n", name.c_str()), 2;
  }
  Totals totals;
  for (const TraceFamily& family : TraceFamilies()) {
    bool wanted = config.families.empty();
    for (const std::string& name : config.families) wanted |= name == family.name;
    if (wanted) RunFamily(config, family, totals);
  }
  PrintSummary(config, totals);
  return 0;
}

}  // namespace
}  // namespace tiercache

int main(int argc, char** argv) { return tiercache::Main(argc, argv); }
