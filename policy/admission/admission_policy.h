// AdmissionPolicy: decides whether a miss deserves a cache line (SSD wear and space are not free).
// AlwaysAdmit is the default; adaptive and sequential-bypass policies plug in here.
// Implementations must be thread-safe (called from every event loop).
#pragma once

#include <cstdint>

namespace tiercache {

struct AdmissionRequest {
  uint64_t core_line;  // core byte offset / line size
  uint64_t offset;     // request byte offset on the core
  uint64_t length;     // request length in bytes
  bool is_write;
};

class AdmissionPolicy {
 public:
  virtual ~AdmissionPolicy() = default;
  virtual const char* name() const = 0;
  virtual bool admit(const AdmissionRequest& request) = 0;
};

class AlwaysAdmit final : public AdmissionPolicy {
 public:
  const char* name() const override { return "always"; }
  bool admit(const AdmissionRequest&) override { return true; }
};

}  // namespace tiercache
