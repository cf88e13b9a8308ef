// BlockDeviceFingerprint: the fingerprint IdentifyCore records for a block device, computed from a
// sysfs tree (a parameter so tests can use a fake one). Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace tiercache {

// XXH64 of the disk's first identity attribute found under `<sysfs_dev_block>/MAJ:MIN/` (wwid,
// device/wwid, device/serial, serial, dm/uuid, md/uuid; for a partition, its disk's attribute plus
// the partition number and start), else of "rdev:MAJ:MIN".
uint64_t BlockDeviceFingerprint(const std::string& sysfs_dev_block, unsigned major, unsigned minor);

}  // namespace tiercache
