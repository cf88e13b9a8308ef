#include "cachelib/device/models/model_profiles.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <variant>

#include <nlohmann/json.hpp>

#include "cachelib/device/models/hdd_model.h"
#include "cachelib/device/models/ssd_model.h"

namespace tiercache {

extern const char* const kBuiltinProfilesJson;  // generated from profiles.json

namespace {

using Json = nlohmann::json;

template <typename P>
using Field = std::variant<double P::*, uint64_t P::*, uint32_t P::*, bool P::*>;
template <typename P>
using FieldTable = std::map<std::string_view, Field<P>>;

const FieldTable<HddParams>& HddFields() {
  static const FieldTable<HddParams> table = {
      {"capacity_bytes", &HddParams::capacity_bytes},
      {"rpm", &HddParams::rpm},
      {"surfaces", &HddParams::surfaces},
      {"track_to_track_read_ms", &HddParams::track_to_track_read_ms},
      {"track_to_track_write_ms", &HddParams::track_to_track_write_ms},
      {"avg_seek_read_ms", &HddParams::avg_seek_read_ms},
      {"avg_seek_write_ms", &HddParams::avg_seek_write_ms},
      {"full_stroke_read_ms", &HddParams::full_stroke_read_ms},
      {"full_stroke_write_ms", &HddParams::full_stroke_write_ms},
      {"outer_mb_s", &HddParams::outer_mb_s},
      {"inner_ratio", &HddParams::inner_ratio},
      {"command_overhead_ms", &HddParams::command_overhead_ms},
      {"interface_mb_s", &HddParams::interface_mb_s},
      {"ncq_depth", &HddParams::ncq_depth},
      {"write_cache", &HddParams::write_cache},
      {"write_cache_bytes", &HddParams::write_cache_bytes},
      {"write_cache_entries", &HddParams::write_cache_entries},
      {"destage_window", &HddParams::destage_window},
      {"readahead_bytes", &HddParams::readahead_bytes},
      {"buffer_segments", &HddParams::buffer_segments},
      {"segment_bytes", &HddParams::segment_bytes},
      {"starvation_ms", &HddParams::starvation_ms},
  };
  return table;
}

const FieldTable<SsdParams>& SsdFields() {
  static const FieldTable<SsdParams> table = {
      {"units", &SsdParams::units},
      {"stripe_bytes", &SsdParams::stripe_bytes},
      {"command_overhead_us", &SsdParams::command_overhead_us},
      {"read_latency_us", &SsdParams::read_latency_us},
      {"program_latency_us", &SsdParams::program_latency_us},
      {"write_ack_us", &SsdParams::write_ack_us},
      {"write_lag_ms", &SsdParams::write_lag_ms},
      {"unit_read_mb_s", &SsdParams::unit_read_mb_s},
      {"unit_write_mb_s", &SsdParams::unit_write_mb_s},
      {"link_read_mb_s", &SsdParams::link_read_mb_s},
      {"link_write_mb_s", &SsdParams::link_write_mb_s},
      {"full_duplex", &SsdParams::full_duplex},
      {"queue_depth", &SsdParams::queue_depth},
      {"flush_us", &SsdParams::flush_us},
  };
  return table;
}

// Stores `value` into the field; false if the JSON type does not fit it.
template <typename P>
bool Assign(const Json& value, const Field<P>& field, P* params) {
  if (auto* d = std::get_if<double P::*>(&field)) {
    if (!value.is_number()) return false;
    params->**d = value.get<double>();
    return true;
  }
  if (auto* b = std::get_if<bool P::*>(&field)) {
    if (!value.is_boolean()) return false;
    params->**b = value.get<bool>();
    return true;
  }
  if (!value.is_number()) return false;
  const double v = value.get<double>();
  if (v < 0 || v != std::floor(v)) return false;
  if (auto* u64 = std::get_if<uint64_t P::*>(&field)) {
    params->**u64 = value.is_number_unsigned() ? value.get<uint64_t>() : static_cast<uint64_t>(v);
    return true;
  }
  if (v > 4294967295.0) return false;
  params->*std::get<uint32_t P::*>(field) = static_cast<uint32_t>(v);
  return true;
}

template <typename P>
Status ApplyFields(const Json& obj, const FieldTable<P>& table, const std::string& where,
                   P* params) {
  for (const auto& [key, value] : obj.items()) {
    if (key == "kind" || key == "description" || key == "source") continue;
    auto it = table.find(key);
    if (it == table.end()) return Status::InvalidArgument(where + ": unknown key '" + key + "'");
    if (!Assign(value, it->second, params)) {
      return Status::InvalidArgument(where + ": bad value for '" + key + "'");
    }
  }
  return params->validate();
}

Result<ModelProfile> ParseProfile(const std::string& name, const Json& obj,
                                  const std::string& where) {
  if (!obj.is_object()) return Status::InvalidArgument(where + ": not an object");
  ModelProfile p;
  p.name = name;
  auto desc = obj.find("description");
  if (desc != obj.end() && desc->is_string()) p.description = desc->get<std::string>();
  auto kind = obj.find("kind");
  const std::string k = kind != obj.end() && kind->is_string() ? kind->get<std::string>() : "";
  if (k == "hdd") {
    p.kind = ModelProfile::Kind::kHdd;
    p.hdd.name = name;
    TC_RETURN_IF_ERROR(ApplyFields(obj, HddFields(), where, &p.hdd));
  } else if (k == "ssd") {
    p.kind = ModelProfile::Kind::kSsd;
    p.ssd.name = name;
    TC_RETURN_IF_ERROR(ApplyFields(obj, SsdFields(), where, &p.ssd));
  } else {
    return Status::InvalidArgument(where + ": \"kind\" must be \"hdd\" or \"ssd\"");
  }
  return p;
}

}  // namespace

Result<ModelProfiles> ModelProfiles::Builtin() {
  return Parse(kBuiltinProfilesJson, "built-in profiles.json");
}

Result<ModelProfiles> ModelProfiles::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read profiles file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path);
}

Result<ModelProfiles> ModelProfiles::Parse(std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  Json doc = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::InvalidArgument(where + ": not valid JSON");
  auto list = doc.is_object() ? doc.find("profiles") : doc.end();
  if (list == doc.end() || !list->is_object()) {
    return Status::InvalidArgument(where + ": missing \"profiles\" object");
  }
  ModelProfiles out;
  for (const auto& [name, obj] : list->items()) {
    auto p = ParseProfile(name, obj, where + ": profile '" + name + "'");
    if (!p.ok()) return p.status();
    out.profiles_.emplace(name, std::move(p.value()));
  }
  return out;
}

Result<ModelProfile> ModelProfiles::find(std::string_view name) const {
  auto it = profiles_.find(name);
  if (it != profiles_.end()) return it->second;
  std::string known;
  for (const auto& [n, p] : profiles_) known += (known.empty() ? "" : ", ") + n;
  return Status::NotFound("no device profile '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> ModelProfiles::names() const {
  std::vector<std::string> out;
  for (const auto& [n, p] : profiles_) out.push_back(n);
  return out;
}

Result<std::unique_ptr<Device>> MakeModelDevice(const ModelProfile& profile, Device& target,
                                                uint64_t seed) {
  if (profile.kind == ModelProfile::Kind::kHdd) {
    auto m = HddModel::Create(target, profile.hdd, seed);
    if (!m.ok()) return m.status();
    return std::unique_ptr<Device>(std::move(m.value()));
  }
  auto m = SsdModel::Create(target, profile.ssd);
  if (!m.ok()) return m.status();
  return std::unique_ptr<Device>(std::move(m.value()));
}

}  // namespace tiercache
