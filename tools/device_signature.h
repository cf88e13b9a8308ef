// What a device or image file holds that is not a tiercache cache, as blkid sees it (the
// signatures mkfs and wipefs look for, wherever they sit on the device): create refuses to
// overwrite such data without --force. Stateless; thread-safe.
#pragma once

#include <string>

#include "cachelib/common/status.h"

namespace tiercache {

// "a btrfs filesystem", "a LVM2_member raid member", "a gpt partition table", "several
// signatures"; empty when blkid finds none. An error when the probe itself fails.
Result<std::string> FindForeignSignature(const std::string& path);

}  // namespace tiercache
