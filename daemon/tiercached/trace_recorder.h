// TraceRecorder: a DeviceWrapper that logs every client request, as submitted, to a fio iolog v3
// file (`<ns> volume read|write|trim|sync <offset> <length>`), for `tiercached --record FILE`.
// Such a trace replays with fio (--read_iolog) and imports into `tiercache bench` (fio importer).
// Does not own the target. Thread-safe (one mutex around a buffered stream).
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "cachelib/common/clock.h"
#include "cachelib/device/device_wrapper.h"

namespace tiercache {

class TraceRecorder final : public DeviceWrapper {
 public:
  // Creates (truncates) `path` and writes the iolog header.
  static Result<std::unique_ptr<TraceRecorder>> Create(Device& target, const std::string& path,
                                                       const Clock& clock);
  ~TraceRecorder() override;  // writes the close line and flushes

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;

 private:
  TraceRecorder(Device& target, std::FILE* out, const Clock& clock);
  void log(const char* action, uint64_t offset, uint64_t length);

  std::mutex mu_;
  std::FILE* out_;  // GUARDED_BY(mu_)
  const Clock& clock_;
  const Nanos start_;
};

}  // namespace tiercache
