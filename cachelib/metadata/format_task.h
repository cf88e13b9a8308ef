// FormatTask: the callback-driven create behind MetadataStore::Format: check the arguments and
// (unless forced) that the SSD holds no superblock, zero the metadata region, flush, write both
// superblock copies, flush. Owns itself (shared_ptr) until it reports; runs on the loop Format was
// called on. Never touches the core.
#pragma once

#include <memory>
#include <vector>

#include "cachelib/metadata/metadata_store.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {

class FormatTask : public std::enable_shared_from_this<FormatTask> {
 public:
  static void Start(Device& ssd, const CoreIdentity& core, const FormatOptions& options,
                    std::function<void(Status)> done);

  FormatTask(Device& ssd, const FormatOptions& options, std::function<void(Status)> done);

 private:
  Status check_arguments(const CoreIdentity& core);
  void check_existing();
  void zero_metadata();
  void write_superblocks();
  // Flushes the SSD, then runs next (or reports the error).
  void flush_then(void (FormatTask::*next)());
  void succeed();
  void report(Status status);

  Device& ssd_;
  const FormatOptions options_;
  std::function<void(Status)> done_;
  Superblock sb_;
  std::vector<std::byte> buf_;
};

}  // namespace tiercache
