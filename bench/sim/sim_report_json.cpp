#include "bench/sim/sim_report_json.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace tiercache::bench {
namespace {

using Json = nlohmann::ordered_json;

Json CounterObject(const PolicyReport::Counters& counters) {
  Json o = Json::object();
  for (const auto& [name, value] : counters) o[name] = value;
  return o;
}

Json ResultJson(const SimResult& r) {
  Json result{{"cache_bytes", r.sim_case.cache_bytes},
             {"admission", r.sim_case.admission},
             {"replacement", r.sim_case.replacement},
             {"default", r.sim_case.is_default_policy()},
             {"block_accesses", r.block_accesses},
             {"block_misses", r.block_misses()},
             {"miss_ratio", r.miss_ratio()},
             {"ssd_bytes_written", r.ssd_bytes_written()},
             {"hdd_bytes_read", r.hdd_bytes_read()},
             {"requests", r.requests},
             {"policy_counters",
              {{"admission", CounterObject(r.policies.admission_counters)},
               {"replacement", CounterObject(r.policies.replacement_counters)},
               {"sequential", CounterObject(r.policies.sequential_counters)}}}};
  const std::vector<std::string> knobs = r.sim_case.policies().adaptive_knobs;
  if (!knobs.empty()) result["adaptive_knobs"] = knobs;
  return result;
}

}  // namespace

std::string SimJson(const std::vector<SimTraceResult>& traces) {
  Json list = Json::array();
  for (const SimTraceResult& t : traces) {
    Json results = Json::array();
    for (const SimResult& r : t.results) results.push_back(ResultJson(r));
    // Absolute, so the judge finds the file from any directory.
    std::error_code ec;
    std::filesystem::path file = std::filesystem::absolute(t.trace.file, ec);
    list.push_back(Json{{"trace", t.trace.name},
                        {"file", ec ? t.trace.file : file.lexically_normal().string()},
                        {"results", std::move(results)}});
  }
  return Json{{"traces", std::move(list)}}.dump(2) + "\n";
}

}  // namespace tiercache::bench
