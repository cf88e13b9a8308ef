// PolicyFlags: the policy options of `tiercache create` and `tiercache policy` as typed
// (--admission, --replacement, --seq-cutoff, --seq-read-cutoff, --seq-write-cutoff) and their
// resolution into PolicyOptions, checked with the policies' own validation. Value type;
// thread-compatible.
#pragma once

#include <string>

#include "cachelib/common/status.h"
#include "policy/policy_options.h"

namespace CLI {
class App;
}  // namespace CLI

namespace tiercache {

struct PolicyFlags {
  std::string admission;         // --admission NAME; empty: not given
  std::string replacement;       // --replacement NAME; empty: not given
  std::string seq_cutoff;        // --seq-cutoff SIZE, both directions; empty: not given
  std::string seq_read_cutoff;   // --seq-read-cutoff SIZE, over --seq-cutoff; empty: not given
  std::string seq_write_cutoff;  // --seq-write-cutoff SIZE, over --seq-cutoff; empty: not given

  // Adds the five options to `app`, their help naming the defaults of PolicyOptions.
  void add_to(CLI::App* app);
  // True if any of the five was given.
  bool any() const;
  bool any_sequential() const;
  // The given policy names, each checked alone: InvalidArgument "--flag: why", as apply() says.
  Status check_names() const;
  // `base` with every given flag applied. A cutoff of 0 turns sequential bypass off, which is
  // possible for both directions only. InvalidArgument "--flag: why" on a bad size, an unknown
  // policy (the policy's own message) or a cutoff the sequential detector refuses.
  Result<PolicyOptions> apply(PolicyOptions base) const;
};

}  // namespace tiercache
