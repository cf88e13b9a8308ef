// CleaningFlags: the options of `tiercache cleaning` as typed (--policy, --dirty-target,
// --dirty-high, --max-dirty-age, --busy-share, --idle-after), checked with tiercached's own option
// table (same ranges and messages as its flags), and the change request they make over the
// settings in force. Value type; thread-compatible.
#pragma once

#include <string>

#include "cachelib/common/status.h"
#include "daemon/control/control_json.h"

namespace CLI {
class App;
}  // namespace CLI

namespace tiercache {

struct CleaningFlags {
  std::string policy;         // --policy target|nop; empty: not given
  std::string dirty_target;   // --dirty-target SHARE; empty: not given
  std::string dirty_high;     // --dirty-high SHARE
  std::string max_dirty_age;  // --max-dirty-age SECONDS
  std::string busy_share;     // --busy-share SHARE
  std::string idle_after;     // --idle-after SECONDS

  void add_to(CLI::App* app);
  bool any() const;
  // Each given value alone, as tiercached checks its flag: InvalidArgument "--flag: why".
  Status check() const;
  // The "cleaning" request changing what the flags give over `current` (a CleaningSettingsToJson
  // object): only the given fields are sent. InvalidArgument when the result does not hold
  // together ("dirty-target 0.6 must be below dirty-high 0.5").
  Result<ControlJson> request_over(const ControlJson& current) const;
};

}  // namespace tiercache
