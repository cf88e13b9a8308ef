#include "daemon/tiercached/unwritten_data.h"

#include <memory>

#include "cachelib/common/size_parser.h"
#include "cachelib/device/file_device.h"
#include "cachelib/metadata/offline_cache.h"
#include "cachelib/metadata/superblock.h"
#include "daemon/tiercached/cache_service.h"

namespace tiercache {

Result<UnwrittenData> CountUnwrittenData(const std::string& cache_path, bool buffered,
                                         LoopThread& loop) {
  // The store's open compares the core with the one recorded: give it that one.
  Result<Superblock> recorded = RecordedSuperblock(cache_path);
  if (!recorded.ok()) return recorded.status();
  FileDeviceOptions options;
  options.read_only = true;
  options.exclusive = false;  // tiercached holds the cache's own lock already
  options.buffered = buffered;
  Result<std::unique_ptr<FileDevice>> ssd = FileDevice::Open(cache_path, options);
  if (!ssd.ok()) return ssd.status();
  // The copy index is for `tiercache check`'s report only.
  Result<OfflineCache> cache = loop.call<Result<OfflineCache>>([&](auto done) {
    OpenOffline(**ssd, LoadedSuperblock{*recorded}, recorded->core, std::move(done));
  });
  UnwrittenData out;
  if (cache.ok()) {
    cache->store->for_each_loaded([&out](uint64_t, const LineRecord& rec) {
      if (rec.dirty.none()) return;
      ++out.lines;
      out.bytes += rec.dirty.count() * kSectorSize;
    });
  }
  // The store and devices go on the loop they used.
  loop.run_sync([&] {
    if (cache.ok()) {
      cache->store.reset();  // before the overlay it reads through
      cache->overlay.reset();
    }
    ssd->reset();
  });
  if (!cache.ok()) return cache.status();
  return out;
}

Status ExplainRefusedCore(const Status& why, const std::string& cache_path,
                          const Result<UnwrittenData>& unwritten) {
  std::string what = why.message() + "; ";
  if (!unwritten.ok()) {
    what += "could not count the write-back data " + cache_path + " holds for it (" +
            unwritten.status().ToString() + "): `tiercache check --cache " + cache_path +
            "` tells; do not recreate the cache before the core is back";
  } else if (unwritten->lines == 0) {
    // Its clean copies would go stale if the core is written alone (QA, 2026-12-07).
    what += cache_path + " holds no write-back data for it: the core is complete on its own; "
            "if you write to it without the cache, run `tiercache create --force` on the cache "
            "before using the two together again";
  } else {
    what += cache_path + " holds " + FormatSize(unwritten->bytes) + " of write-back data (" +
            std::to_string(unwritten->lines) + (unwritten->lines == 1 ? " line" : " lines") +
            ") not yet on that core: reconnect the core (if its path changed, start tiercached "
            "with --core NEWPATH), and do not recreate the cache, which would lose it";
  }
  return why.with_message(what);
}

}  // namespace tiercache
