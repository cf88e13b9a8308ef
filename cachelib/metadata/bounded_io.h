// RunBounded: runs `count` asynchronous device requests with at most `window` in flight (metadata
// page writes, region zeroing, chunked reads) and reports once all of them finished.
// REQUIRES: called on an event loop; every request is submitted on that loop and completes on it
// (the Device contract), so the shared state needs no lock.
#pragma once

#include <cstddef>
#include <functional>

#include "cachelib/device/device.h"

namespace tiercache {

// submit(i, cb) starts request i and arranges for cb(status) to run when it completes (never
// inline). After the first error no new requests start; done(first error or OK) runs once every
// started request completed. done runs later on the current loop even when count == 0.
void RunBounded(size_t count, size_t window, std::function<void(size_t, IoCallback)> submit,
                IoCallback done);

// Runs cb(status) later on the current loop (never inline). REQUIRES: called on an event loop.
void PostStatus(IoCallback cb, Status status);

}  // namespace tiercache
