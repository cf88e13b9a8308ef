#include "cachelib/metadata/metadata_store.h"

#include "cachelib/metadata/format.h"
#include "cachelib/metadata/format_task.h"
#include "cachelib/metadata/open_task.h"

namespace tiercache {
namespace {

struct ModeEntry {
  CacheMode mode;
  std::string_view name;
};
constexpr ModeEntry kModes[] = {
    {CacheMode::kWriteThrough, "wt"},
    {CacheMode::kWriteBack, "wb"},
    {CacheMode::kWriteAround, "wa"},
    {CacheMode::kPassThrough, "pt"},
};

}  // namespace

std::string_view ModeName(CacheMode mode) {
  for (const ModeEntry& e : kModes) {
    if (e.mode == mode) return e.name;
  }
  return "unknown";
}

Result<CacheMode> ParseMode(std::string_view name) {
  for (const ModeEntry& e : kModes) {
    if (e.name == name) return e.mode;
  }
  return Status::InvalidArgument("unknown cache mode '" + std::string(name) +
                                 "' (expected wt, wb, wa or pt)");
}

Status FormatOptions::validate() const {
  if (line_size < format::kMinLineSize || line_size > format::kMaxLineSize ||
      (line_size & (line_size - 1)) != 0) {
    return Status::InvalidArgument("line_size " + std::to_string(line_size) +
                                   " must be a power of two between 4096 and 1048576 bytes");
  }
  if (static_cast<uint8_t>(mode) > static_cast<uint8_t>(CacheMode::kPassThrough)) {
    return Status::InvalidArgument("mode " + std::to_string(static_cast<int>(mode)) +
                                   " is not a cache mode");
  }
  for (const std::string* name : {&policies.admission, &policies.replacement}) {
    if (name->empty() || name->size() > format::sb::kPolicyNameBytes) {
      return Status::InvalidArgument("policy name '" + *name + "' must be 1 to 16 bytes");
    }
  }
  return policies.validate();
}

void MetadataStore::Format(Device& ssd, const CoreIdentity& core, const FormatOptions& options,
                           std::function<void(Status)> done) {
  FormatTask::Start(ssd, core, options, std::move(done));
}

void MetadataStore::Open(Device& ssd, const CoreIdentity& core, OpenCallback done,
                         const StoreOptions& options) {
  OpenTask::Start(ssd, core, options, std::move(done));
}

}  // namespace tiercache
