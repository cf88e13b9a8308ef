#include "bench/runner/workload_catalog.h"

#include <algorithm>
#include <memory>

#include "bench/workloads/recorded_traces.h"
#include "bench/workloads/synthetic_traces.h"
#include "bench/workloads/text_fields.h"

namespace tiercache::bench {
namespace {

WorkloadSpec FixedTrace(Trace trace, std::string description) {
  auto shared = std::make_shared<const Trace>(std::move(trace));
  WorkloadSpec w;
  w.name = shared->name;
  w.metric = "seconds";
  w.description = std::move(description);
  w.make_pass = [shared](uint32_t) { return *shared; };
  return w;
}

}  // namespace

Status WorkloadCatalog::add_trace(Trace trace) {
  const std::string name = trace.name;
  const auto refuse = [&](const std::string& why) {
    return Status::InvalidArgument("--trace " + name + "=...: " + why);
  };
  if (name.empty()) return Status::InvalidArgument("--trace =...: the workload needs a name");
  if (traces_.count(name) != 0) return refuse("a second trace of that name");
  static const std::vector<std::string> kGroups = {"traces", "cdm", "cdm-large", "asssd", "all"};
  const bool group = std::find(kGroups.begin(), kGroups.end(), name) != kGroups.end();
  if (group || name.find(':') != std::string::npos || name.find(',') != std::string::npos ||
      make(name).ok()) {
    return refuse("the name of a built-in workload or group; choose another");
  }
  traces_[name] = std::move(trace);
  return Status::Ok();
}

std::vector<std::string> WorkloadCatalog::expand(const std::string& item) const {
  auto names = [](const std::vector<SyntheticTest>& tests) {
    std::vector<std::string> out;
    for (const auto& t : tests) out.push_back(t.name);
    return out;
  };
  if (item == "traces") return {"boot", "applaunch", "gameload", "realapp"};
  if (item == "cdm") return names(CrystalDiskMarkTests("cdm"));
  if (item == "cdm-large") return names(CrystalDiskMarkTests("cdm-large"));
  if (item == "asssd") return names(AsSsdTests());
  if (item == "all") {
    std::vector<std::string> out = {"boot", "applaunch", "gameload"};
    for (const RecordedTrace& t : RecordedTraces()) out.emplace_back(t.name);
    for (const auto& group : {"cdm", "asssd", "cdm-large"}) {
      for (auto& n : expand(group)) out.push_back(n);
    }
    out.push_back("hdtune");
    for (const auto& [name, t] : traces_) out.push_back(name);
    return out;
  }
  return {item};
}

Result<std::vector<WorkloadSpec>> WorkloadCatalog::select(const std::string& selection) const {
  std::vector<std::string> names;
  for (std::string_view item : SplitChar(selection, ',')) {
    if (item.empty()) continue;
    for (auto& n : expand(std::string(item))) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  if (names.empty()) return Status::InvalidArgument("no workloads selected");
  std::vector<WorkloadSpec> out;
  for (const auto& n : names) {
    auto w = make(n);
    if (!w.ok()) return w.status();
    out.push_back(std::move(w).value());
  }
  return out;
}

Result<WorkloadSpec> WorkloadCatalog::make(const std::string& name) const {
  if (auto it = traces_.find(name); it != traces_.end()) {
    return FixedTrace(it->second, "imported trace");
  }
  for (const RecordedTrace& r : RecordedTraces()) {
    if (r.name != name) continue;
    auto t = LoadRecordedTrace(name);
    if (!t.ok()) return t.status();
    return FixedTrace(std::move(t).value(), std::string(r.description));
  }
  const uint64_t seed = options_.seed;
  if (name == "boot") {
    BootTraceParams p;
    p.scale = options_.trace_scale;
    return FixedTrace(GenerateBootTrace(p, seed), "OS boot: time to complete the trace");
  }
  if (name == "applaunch") {
    AppLaunchParams p;
    p.scale = options_.trace_scale;
    return FixedTrace(GenerateAppLaunchTrace(p, seed), "starting five applications");
  }
  if (name == "gameload") {
    GameLoadParams p;
    p.scale = options_.trace_scale;
    return FixedTrace(GenerateGameLoadTrace(p, seed), "loading a game level");
  }
  if (name == "hdtune") return hdtune();
  auto test = ParseSyntheticTest(name);
  if (!test.ok()) {
    return Status::InvalidArgument(
        "unknown workload '" + name +
        "' (boot, applaunch, gameload, realapp, realapp-install, cdm, asssd, cdm-large, hdtune, "
        "all, "
        "cdm:RND4K-Q32T1-read style names or an imported trace)");
  }
  return synthetic(test.value());
}

WorkloadSpec WorkloadCatalog::synthetic(const SyntheticTest& test) const {
  SyntheticArea area;
  area.offset = options_.area_offset;
  area.bytes = test.name.starts_with("cdm-large:") ? options_.large_area_bytes : options_.area_bytes;
  area.random_ops = options_.random_ops;
  WorkloadSpec w;
  w.name = test.name;
  w.metric = "mb_per_s";
  w.description = std::string(test.sequential ? "sequential " : "random ") +
                  std::to_string(test.block >= (1 << 20) ? test.block >> 20 : test.block >> 10) +
                  (test.block >= (1 << 20) ? " MiB " : " KiB ") + (test.write ? "writes" : "reads") +
                  ", QD" + std::to_string(test.queue_depth) + " x " +
                  std::to_string(test.threads) + " thread(s), " +
                  std::to_string(area.bytes >> 20) + " MiB test area";
  const uint64_t seed = options_.seed;
  w.make_pass = [test, area, seed](uint32_t pass) {
    return MakeSyntheticTrace(test, area, seed, pass);
  };
  w.preparation = MakePreparationTrace(area);
  w.test = test;
  w.area_bytes = area.bytes;
  return w;
}

WorkloadSpec WorkloadCatalog::hdtune() const {
  HdTuneParams p;
  p.offset = options_.area_offset;
  p.bytes = options_.area_bytes;
  p.positions = options_.hdtune_positions;
  WorkloadSpec w;
  w.name = "hdtune";
  w.metric = "mb_per_s";
  // No preparation: HD Tune reads a volume as it finds it, so pass 1 meets a cold cache.
  w.description = "HD Tune linear read: 1 MiB reads at QD1 over the " +
                  std::to_string(p.bytes >> 20) + " MiB test area, MB/s at " +
                  std::to_string(p.positions) + " positions";
  auto trace = std::make_shared<const Trace>(MakeHdTuneTrace(p));
  w.make_pass = [trace](uint32_t) { return *trace; };
  w.area_bytes = p.bytes;
  w.hdtune = p;
  return w;
}

}  // namespace tiercache::bench
