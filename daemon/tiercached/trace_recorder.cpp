#include "daemon/tiercached/trace_recorder.h"

#include <cerrno>
#include <cinttypes>

namespace tiercache {

Result<std::unique_ptr<TraceRecorder>> TraceRecorder::Create(Device& target,
                                                             const std::string& path,
                                                             const Clock& clock) {
  std::FILE* out = std::fopen(path.c_str(), "we");
  if (out == nullptr) return Status::FromErrno(errno, "create trace file " + path);
  std::fprintf(out, "fio version 3 iolog\n0 volume add\n0 volume open\n");
  return std::unique_ptr<TraceRecorder>(new TraceRecorder(target, out, clock));
}

TraceRecorder::TraceRecorder(Device& target, std::FILE* out, const Clock& clock)
    : DeviceWrapper(target), out_(out), clock_(clock), start_(clock.now()) {}

TraceRecorder::~TraceRecorder() {
  std::lock_guard lock(mu_);
  std::fprintf(out_, "%" PRId64 " volume close\n", int64_t((clock_.now() - start_).count()));
  std::fclose(out_);
}

void TraceRecorder::log(const char* action, uint64_t offset, uint64_t length) {
  // Nanoseconds since the start, as fio writes v3 logs; I/O actions always carry offset and
  // length (fio's parser wants both even for sync).
  int64_t ns = (clock_.now() - start_).count();
  std::lock_guard lock(mu_);
  std::fprintf(out_, "%" PRId64 " volume %s %" PRIu64 " %" PRIu64 "\n", ns, action, offset,
               length);
}

void TraceRecorder::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  log("read", offset, buf.size());
  DeviceWrapper::read_impl(offset, buf, std::move(cb));
}

void TraceRecorder::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                               IoCallback cb) {
  log("write", offset, buf.size());
  DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
}

void TraceRecorder::flush_impl(IoCallback cb) {
  log("sync", 0, 0);
  DeviceWrapper::flush_impl(std::move(cb));
}

void TraceRecorder::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  log("trim", offset, length);
  DeviceWrapper::discard_impl(offset, length, std::move(cb));
}

void TraceRecorder::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                                      IoCallback cb) {
  log("write", offset, length);  // iolog has no zeroing action: a write of the same extent
  DeviceWrapper::write_zeroes_impl(offset, length, flags, std::move(cb));
}

}  // namespace tiercache
