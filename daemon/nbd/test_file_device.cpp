#include "daemon/nbd/test_file_device.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace tiercache::nbd {

Result<std::unique_ptr<TestFileDevice>> TestFileDevice::Open(const std::string& path,
                                                             uint32_t block_size) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "open " + path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    Status s = Status::FromErrno(errno, "fstat " + path);
    ::close(fd);
    return s;
  }
  uint64_t size = uint64_t(st.st_size) - uint64_t(st.st_size) % block_size;
  return std::unique_ptr<TestFileDevice>(new TestFileDevice(path, fd, size, block_size));
}

TestFileDevice::~TestFileDevice() { ::close(fd_); }

void TestFileDevice::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  size_t done = 0;
  while (done < buf.size()) {
    ssize_t n = ::pread(fd_, buf.data() + done, buf.size() - done, off_t(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return complete_later(std::move(cb), Status::FromErrno(errno, "pread"));
    if (n == 0) return complete_later(std::move(cb), Status::IoError("short read"));
    done += size_t(n);
  }
  complete_later(std::move(cb), Status::Ok());
}

void TestFileDevice::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                                IoCallback cb) {
  size_t done = 0;
  while (done < buf.size()) {
    ssize_t n = ::pwrite(fd_, buf.data() + done, buf.size() - done, off_t(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return complete_later(std::move(cb), Status::FromErrno(errno, "pwrite"));
    done += size_t(n);
  }
  if (flags.fua && ::fdatasync(fd_) != 0) {
    return complete_later(std::move(cb), Status::FromErrno(errno, "fdatasync"));
  }
  complete_later(std::move(cb), Status::Ok());
}

void TestFileDevice::flush_impl(IoCallback cb) {
  Status s = ::fdatasync(fd_) == 0 ? Status::Ok() : Status::FromErrno(errno, "fdatasync");
  complete_later(std::move(cb), std::move(s));
}

Status TestFileDevice::ZeroRange(uint64_t offset, uint64_t length) {
  if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(offset), off_t(length)) ==
      0) {
    return Status::Ok();
  }
  std::vector<std::byte> zeros(std::min<uint64_t>(length, 1 << 20));
  for (uint64_t done = 0; done < length;) {
    size_t n = size_t(std::min<uint64_t>(zeros.size(), length - done));
    ssize_t w = ::pwrite(fd_, zeros.data(), n, off_t(offset + done));
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return Status::FromErrno(errno, "pwrite zeroes");
    done += uint64_t(w);
  }
  return Status::Ok();
}

void TestFileDevice::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  complete_later(std::move(cb), ZeroRange(offset, length));
}

void TestFileDevice::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                                       IoCallback cb) {
  Status s = ZeroRange(offset, length);
  if (s.ok() && flags.fua && ::fdatasync(fd_) != 0) s = Status::FromErrno(errno, "fdatasync");
  complete_later(std::move(cb), std::move(s));
}

}  // namespace tiercache::nbd
