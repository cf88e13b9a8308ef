#include "bench/sim/sim_options.h"

#include <algorithm>
#include <filesystem>
#include <set>

namespace tiercache::bench {
namespace {

constexpr std::string_view kFormats[] = {"blkparse", "fio", "msr"};

template <typename T>
std::vector<T> Unique(std::vector<T> values) {
  std::vector<T> out;
  for (T& v : values) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

Status SimOptions::validate() const {
  if (traces.empty()) return Status::InvalidArgument("traces: give at least one trace");
  std::set<std::string> names;
  for (const SimTraceSpec& t : traces) {
    if (!names.insert(t.name).second) {
      return Status::InvalidArgument("traces: two traces are named '" + t.name +
                                     "' (use NAME=FORMAT:FILE)");
    }
  }
  if (cache_bytes.empty()) return Status::InvalidArgument("cache_bytes: give at least one size");
  if (admissions.empty()) return Status::InvalidArgument("admissions: give at least one policy");
  if (replacements.empty()) {
    return Status::InvalidArgument("replacements: give at least one policy");
  }
  for (const SimCase& c : cases()) TC_RETURN_IF_ERROR(c.validate());
  return Status::Ok();
}

std::vector<SimCase> SimOptions::cases() const {
  std::vector<uint64_t> sizes = Unique(cache_bytes);
  std::sort(sizes.begin(), sizes.end());
  std::vector<SimCase> out;
  for (uint64_t size : sizes) {
    for (const std::string& admission : Unique(admissions)) {
      for (const std::string& replacement : Unique(replacements)) {
        out.push_back(
            SimCase{size, admission, replacement, mode, shards, sequential, adaptive_knobs});
      }
    }
  }
  return out;
}

Result<SimTraceSpec> ParseSimTraceSpec(std::string_view text) {
  SimTraceSpec spec;
  std::string_view rest = text;
  const size_t colon = rest.find(':');
  const size_t eq = rest.find('=');
  if (eq != std::string_view::npos && eq < colon) {
    spec.name = std::string(rest.substr(0, eq));
    rest.remove_prefix(eq + 1);
  }
  const size_t sep = rest.find(':');
  if (sep == std::string_view::npos || sep + 1 == rest.size()) {
    return Status::InvalidArgument("trace '" + std::string(text) +
                                   "': expected [NAME=]FORMAT:FILE");
  }
  spec.format = std::string(rest.substr(0, sep));
  spec.file = std::string(rest.substr(sep + 1));
  if (std::find(std::begin(kFormats), std::end(kFormats), spec.format) == std::end(kFormats)) {
    return Status::InvalidArgument("trace '" + std::string(text) + "': unknown format '" +
                                   spec.format + "' (blkparse, fio, msr)");
  }
  if (spec.name.empty()) spec.name = std::filesystem::path(spec.file).stem().string();
  if (spec.name.empty()) {
    return Status::InvalidArgument("trace '" + std::string(text) + "': empty name");
  }
  return spec;
}

}  // namespace tiercache::bench
