#include "policy/replacement/replacement_options.h"

#include <algorithm>

#include "policy/replacement/replacement_factory.h"

namespace tiercache {

Status ReplacementOptions::validate() const {
  auto names = ReplacementPolicyNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string msg = "unknown replacement policy '" + name + "' (";
    for (size_t i = 0; i < names.size(); ++i) {
      msg += (i > 0 ? ", " : "");
      msg += names[i];
    }
    return Status::InvalidArgument(msg + ")");
  }
  // Written so that NaN fails too.
  if (!(small_queue_share > 0 && small_queue_share <= 0.5)) {
    return Status::InvalidArgument("small_queue_share must be in (0, 0.5], got " +
                                   std::to_string(small_queue_share));
  }
  return Status::Ok();
}

}  // namespace tiercache
