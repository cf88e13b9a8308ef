// Loop devices and the files behind them: /dev/loop0 over ssd.img is the same storage as
// ssd.img, which the exclusivity checks must see (a daemon on one, another on the other, or a
// cache whose core is a loop over the cache file). Stateless; thread-safe.
#pragma once

#include <string>

namespace tiercache {

// The file a loop block device at `path` reads and writes (/sys/dev/block/MAJ:MIN/loop/
// backing_file); empty when `path` is not a loop device or has no backing file (none, or one
// deleted since).
std::string LoopBackingFile(const std::string& path);

// Whether `a` and `b` name the same file or device, a loop device counting as its backing file.
bool SameStorage(const std::string& a, const std::string& b);

}  // namespace tiercache
