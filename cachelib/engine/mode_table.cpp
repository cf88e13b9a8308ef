#include "cachelib/engine/mode_table.h"

namespace tiercache {
namespace {

constexpr ModeOps kModes[] = {
    {"wt", &WriteSegmentWt},  // CacheMode::kWriteThrough
    {"wb", &WriteSegmentWb},  // CacheMode::kWriteBack
    {"wa", &WriteSegmentWa},  // CacheMode::kWriteAround
    {"pt", &WriteSegmentPt},  // CacheMode::kPassThrough
};

}  // namespace

const ModeOps& OpsFor(CacheMode mode) { return kModes[static_cast<int>(mode)]; }

}  // namespace tiercache
