#include "cachelib/metadata/superblock_writer.h"

#include <memory>
#include <vector>

namespace tiercache {

void WriteSuperblockCopy(Device& ssd, const Superblock& next, uint32_t copy, IoCallback done) {
  auto buf = std::make_shared<std::vector<std::byte>>(format::kBlockSize);
  EncodeSuperblock(next, *buf);
  ssd.write(format::kSuperblockOffset[copy], *buf, {},
            [&ssd, buf, done = std::move(done)](Status s) mutable {
              if (!s.ok()) return done(std::move(s));
              ssd.flush(std::move(done));
            });
}

void RebindCore(Device& ssd, const LoadedSuperblock& current, const CoreIdentity& core,
                IoCallback done) {
  if (core.path.size() > format::kMaxCorePathBytes) {
    return done(Status::InvalidArgument("core path " + core.path + " is longer than " +
                                        std::to_string(format::kMaxCorePathBytes) + " bytes"));
  }
  Superblock next = current.sb;
  next.core = core;
  next.sequence += 1;
  WriteSuperblockCopy(ssd, next, 1 - current.copy, std::move(done));
}

}  // namespace tiercache
