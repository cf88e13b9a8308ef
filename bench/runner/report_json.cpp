#include "bench/runner/report_json.h"

#include <cerrno>
#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

namespace tiercache::bench {
namespace {

using Json = nlohmann::ordered_json;

Json Optional(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// A policy name given to the wt/wb setups; null for the engine's default.
Json NameOrNull(const std::string& name) { return name.empty() ? Json(nullptr) : Json(name); }

// The cleaning knobs under the keys `tiercache status --json` uses.
Json KnobsJson(const CleaningOptions& o) {
  auto ms = [](Nanos t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t).count();
  };
  return Json{{"dirty_target", o.dirty_target},
              {"dirty_high", o.dirty_high},
              {"max_dirty_age_ms", ms(o.max_dirty_age)},
              {"busy_share", o.busy_share},
              {"idle_after_ms", ms(o.idle_after)}};
}

Json PassJson(const PassResult& p) {
  Json out{{"seconds", p.seconds},
           {"mb_per_s", p.mb_per_s},
           {"iops", p.iops},
           {"hit_ratio", Optional(p.hit_ratio)},
           {"ssd_bytes_written", p.ssd_bytes_written},
           {"mean_latency_us", p.mean_latency_us},
           {"read_hit_ratio", Optional(p.read_hit_ratio)},
           {"write_hit_ratio", Optional(p.write_hit_ratio)},
           {"hdd_bytes_read", p.hdd_bytes_read},
           {"hdd_bytes_written", p.hdd_bytes_written},
           {"ops", p.ops},
           {"bytes_read", p.bytes_read},
           {"bytes_written", p.bytes_written},
           {"errors", p.errors}};
  if (!p.positions.empty()) {
    Json positions = Json::array();
    for (const PositionResult& pos : p.positions) {
      positions.push_back(Json{{"offset", pos.offset}, {"mb_per_s", pos.mb_per_s}});
    }
    out["positions"] = std::move(positions);
  }
  return out;
}

Json SetupJson(const WorkloadResult& w, const SetupResult& s) {
  Json passes = Json::array();
  for (const auto& p : s.passes) passes.push_back(PassJson(p));
  Json out{{"name", s.name}, {"passes", std::move(passes)}};
  if (auto x = w.speedup_vs_hdd(s)) out["speedup_vs_hdd"] = *x;
  if (!s.error.empty()) out["error"] = s.error;
  return out;
}

}  // namespace

std::string ToJsonText(const BenchResults& results) {
  Json workloads = Json::array();
  for (const auto& w : results.workloads) {
    Json setups = Json::array();
    for (const auto& s : w.setups) setups.push_back(SetupJson(w, s));
    workloads.push_back(Json{{"name", w.name},
                             {"metric", w.metric},
                             {"description", w.description},
                             {"setups", std::move(setups)}});
  }
  const BenchPolicies& p = results.policies;
  Json doc{{"workloads", std::move(workloads)},
           {"mode", results.mode},
           {"passes", results.passes},
           {"seed", results.seed},
           {"hdd_model", results.hdd_profile},
           {"ssd_model", results.ssd_profile},
           {"cache_bytes", results.cache_bytes},
           {"admission", NameOrNull(p.admission)},
           {"replacement", NameOrNull(p.replacement)},
           {"seq_cutoff_bytes", p.seq_cutoff_bytes ? Json(*p.seq_cutoff_bytes) : Json(nullptr)},
           {"cleaning", NameOrNull(p.cleaning)},
           {"cleaning_options",
            p.cleaning_options ? KnobsJson(*p.cleaning_options) : Json(nullptr)}};
  return doc.dump(2) + "\n";
}

Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::FromErrno(errno, "open " + path);
  out << text;
  out.close();
  if (!out) return Status::IoError("write " + path + " failed");
  return Status::Ok();
}

}  // namespace tiercache::bench
