// Test helper for the model tests: keeps `qd` requests in flight against a Device on a
// SimEventLoop until `count` have completed, and reports the virtual time it took.
// Test-only; single-threaded.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/device.h"

namespace tiercache::testing {

struct Request {
  bool write = false;
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct ClosedLoopResult {
  Nanos elapsed{0};
  uint64_t ops = 0, bytes = 0, errors = 0;
  double seconds() const { return static_cast<double>(elapsed.count()) / 1e9; }
  double iops() const { return static_cast<double>(ops) / seconds(); }
  double mb_per_s() const { return static_cast<double>(bytes) / 1e6 / seconds(); }
};

// `next(i)` describes request i (0-based, in issue order).
inline ClosedLoopResult RunClosedLoop(SimEventLoop& loop, Device& dev, int qd, uint64_t count,
                                      const std::function<Request(uint64_t)>& next) {
  struct State {
    uint64_t issued = 0, done = 0;
    ClosedLoopResult result;
    std::vector<std::vector<std::byte>> buffers;
  };
  auto st = std::make_shared<State>();
  st->buffers.resize(qd);
  const Nanos start = loop.clock().now();
  std::function<void(int)> issue = [&, st](int slot) {
    if (st->issued >= count) return;
    const Request r = next(st->issued++);
    auto& buf = st->buffers[slot];
    buf.assign(r.length, std::byte{0x5a});
    auto cb = [&, st, slot, len = r.length](Status s) {
      ++st->done;
      st->result.bytes += len;
      if (!s.ok()) ++st->result.errors;
      issue(slot);
    };
    if (r.write) {
      dev.write(r.offset, buf, {}, cb);
    } else {
      dev.read(r.offset, buf, cb);
    }
  };
  {
    EventLoop::ScopedCurrent scope(&loop);
    for (int s = 0; s < qd; ++s) issue(s);
  }
  loop.run_until([&] { return st->done >= count; });
  st->result.ops = st->done;
  st->result.elapsed = loop.clock().now() - start;
  return st->result;
}

}  // namespace tiercache::testing
