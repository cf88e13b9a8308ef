#include "cachelib/metadata/offline_cache.h"

namespace tiercache {

void OpenOffline(Device& ssd, LoadedSuperblock superblock, const CoreIdentity& core,
                 std::function<void(Result<OfflineCache>)> done) {
  auto cache = std::make_shared<OfflineCache>(
      OfflineCache{std::move(superblock), std::make_unique<WriteOverlayDevice>(ssd), nullptr});
  MetadataStore::Open(*cache->overlay, core,
                      [cache, done = std::move(done)](Result<std::unique_ptr<MetadataStore>> s) {
                        if (!s.ok()) return done(s.status());
                        cache->store = std::move(s).value();
                        done(std::move(*cache));
                      });
}

}  // namespace tiercache
