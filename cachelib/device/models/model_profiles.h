// ModelProfiles: named device timing profiles (cachelib/device/models/profiles.json, built into the binary;
// an edited copy can be loaded from a file), and MakeModelDevice(), which wraps a Device in the
// model a profile names. Used by tiercache-bench and by tiercached --core-model/--cache-model.
// Immutable after loading; thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cachelib/device/models/hdd_params.h"
#include "cachelib/device/models/ssd_params.h"
#include "cachelib/device/device.h"

namespace tiercache {

struct ModelProfile {
  enum class Kind : uint8_t { kHdd, kSsd };
  std::string name;
  Kind kind = Kind::kHdd;
  std::string description;
  HddParams hdd;  // meaningful when kind == kHdd
  SsdParams ssd;  // meaningful when kind == kSsd
};

class ModelProfiles {
 public:
  // The profiles.json shipped in cachelib/device/models, compiled in.
  static Result<ModelProfiles> Builtin();
  // A profiles file in the same format. NotFound if unreadable, InvalidArgument if malformed.
  static Result<ModelProfiles> Load(const std::string& path);
  // Parses the JSON text; `origin` names it in error messages. Unknown keys are errors (typos
  // must not silently fall back to defaults); missing keys keep the HddParams/SsdParams defaults.
  static Result<ModelProfiles> Parse(std::string_view json_text, std::string_view origin);

  // NotFound listing the known names.
  Result<ModelProfile> find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, ModelProfile, std::less<>> profiles_;
};

// Wraps `target` (not owned; must outlive the result) in an HddModel or SsdModel for `profile`.
// `seed` sets the HDD's spindle phase; the SSD model has no randomness.
Result<std::unique_ptr<Device>> MakeModelDevice(const ModelProfile& profile, Device& target,
                                                uint64_t seed = 1);

}  // namespace tiercache
