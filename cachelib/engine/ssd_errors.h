// How the I/O paths survive cache SSD errors (docs/io-paths.md "SSD failures"): every error is
// recorded in Engine::ssd_health; a failed read of clean sectors is answered from the core; a
// failed SSD write next to a successful core write drops the SSD copy instead of failing the
// client. Free functions over the Engine, called on the request's loop.
#pragma once

#include <cstdint>
#include <memory>

#include "cachelib/engine/request.h"

namespace tiercache {

// Records one SSD error, `error`, in the engine's health (time from the background loop's
// clock); the ssd_error log line names it.
void NoteSsdError(Engine& e, SsdErrorKind kind, const Status& error);
// `cb`, recording an error of `kind` first when the I/O failed.
IoCallback NotingSsdErrors(Engine& e, SsdErrorKind kind, IoCallback cb);

// Completion of a failed SSD read of sectors [first, first+n) of line `line_id` (core line
// `core_line`) into `dst`, under at least the shared core-line lock: records the error, drops the
// clean copies; if none of the sectors is dirty, reads them from the core into `dst` and calls
// cb(core status); else cb(ssd_status): the core's copy of a dirty sector is stale.
void RecoverSsdRead(Engine& e, uint64_t core_line, uint32_t line_id, uint32_t first, uint32_t n,
                    std::byte* dst, Status ssd_status, IoCallback cb);
// The SSD read of a run, recovered as above when it fails.
void SsdReadOrRecover(Engine& e, uint64_t core_line, uint32_t line_id, uint32_t first, uint32_t n,
                      std::byte* dst, IoCallback cb);

// After the core took the segment's write but the SSD copy in line `line_id` failed, under the
// exclusive core-line lock: drops the clean copies at once; sectors that were dirty stay dirty
// (their old SSD data is the newest durable copy) until a core flush makes the new data durable,
// then they are dropped too. done(Ok), or the core flush's error.
void DropSsdCopyAfterCoreWrite(Engine& e, const Segment& seg, uint32_t line_id, IoCallback done);

}  // namespace tiercache
