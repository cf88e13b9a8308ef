#include "cachelib/device/file_device.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "cachelib/common/event_loop.h"
#include "cachelib/common/slot_pool.h"
#include "cachelib/device/aio_context.h"
#include "cachelib/device/blocking_worker.h"
#include "cachelib/device/uring_context.h"

namespace tiercache {
namespace {

constexpr uint32_t kMaxBlockSize = 1u << 20;
constexpr size_t kZeroBufferBytes = 1u << 20;

struct FreeDeleter {
  void operator()(std::byte* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<std::byte, FreeDeleter>;

AlignedBuffer AllocAligned(size_t alignment, size_t length) {
  void* p = nullptr;
  if (posix_memalign(&p, alignment, length) != 0) return nullptr;
  return AlignedBuffer(static_cast<std::byte*>(p));
}

std::string Range(uint64_t offset, uint64_t length) {
  return " offset " + std::to_string(offset) + " length " + std::to_string(length);
}

// O_EXCL when `path` is a block device: Linux then claims it for this open (EBUSY if mounted or
// claimed by another exclusive opener). Without O_CREAT it means nothing for other files.
int ExclusiveFlag(const std::string& path, const FileDeviceOptions& o) {
  struct stat st {};
  if (!o.exclusive || stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return 0;
  return O_EXCL;
}

Result<int> OpenFd(const std::string& path, const FileDeviceOptions& o) {
  int flags = (o.read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC | ExclusiveFlag(path, o);
  int fd = open(path.c_str(), flags | (o.buffered ? 0 : O_DIRECT));
  if (fd >= 0) return fd;
  int err = errno;
  if (err == EBUSY && (flags & O_EXCL) != 0) {
    return Status::Busy(path + " is in use: it is mounted, or another program (another "
                               "tiercached, an md array, device-mapper) holds it exclusively");
  }
  if (err == EINVAL && !o.buffered) {
    // Find out whether O_DIRECT was the cause: opening without it succeeds.
    int probe = open(path.c_str(), flags);
    if (probe >= 0) {
      struct stat st {};
      const bool device_like =
          fstat(probe, &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode));
      close(probe);
      // A directory or a character device refuses O_DIRECT too: say what it is instead.
      if (!device_like) {
        return Status::InvalidArgument(path + ": not a regular file or a block device");
      }
      return Status::InvalidArgument("open " + path +
                                     ": the filesystem refuses O_DIRECT (open returned EINVAL);"
                                     " use the page cache instead (tiercached --buffered)");
    }
  }
  return Status::FromErrno(err, "open " + path);
}

struct Geometry {
  uint64_t size = 0;
  uint32_t block_size = 4096;
  bool is_block_device = false;
};

Result<Geometry> ProbeGeometry(int fd, const std::string& path, const FileDeviceOptions& o) {
  struct stat st {};
  if (fstat(fd, &st) < 0) return Status::FromErrno(errno, "fstat " + path);
  Geometry g;
  g.is_block_device = S_ISBLK(st.st_mode);
  if (g.is_block_device) {
    int logical = 0;
    if (ioctl(fd, BLKSSZGET, &logical) < 0) return Status::FromErrno(errno, "BLKSSZGET " + path);
    if (ioctl(fd, BLKGETSIZE64, &g.size) < 0) {
      return Status::FromErrno(errno, "BLKGETSIZE64 " + path);
    }
    g.block_size = static_cast<uint32_t>(logical);
    if (o.block_size != 0 && o.block_size % g.block_size != 0) {
      return Status::InvalidArgument(path + ": block_size " + std::to_string(o.block_size) +
                                     " is not a multiple of the logical block size " +
                                     std::to_string(g.block_size));
    }
  } else if (S_ISREG(st.st_mode)) {
    g.size = static_cast<uint64_t>(st.st_size);
  } else {
    return Status::InvalidArgument(path + ": not a regular file or a block device");
  }
  if (o.block_size != 0) g.block_size = o.block_size;
  g.size -= g.size % g.block_size;
  if (g.size == 0) {
    return Status::InvalidArgument(path + ": smaller than one block (" +
                                   std::to_string(g.block_size) + " bytes)");
  }
  return g;
}

// Whether io_uring may be used at all (the test hook stands in for a refusing kernel).
Status ProbeUring(const FileDeviceOptions& o) {
  if (o.fail_uring_setup_errno != 0) {
    return Status::FromErrno(o.fail_uring_setup_errno, "io_uring_queue_init");
  }
  return UringContext::Probe();
}

// The message of a queue that could not be set up on a loop.
Status QueueSetupError(const std::string& device, const char* what, const Status& s) {
  std::string msg = device + ": cannot set up " + what + " on this event loop: " + s.message();
  return s.code() == Status::Code::kNotSupported ? Status::NotSupported(msg)
                                                 : Status::IoError(msg);
}

}  // namespace

Status FileDeviceOptions::validate() const {
  if (queue_depth < 1 || queue_depth > 65536) {
    return Status::InvalidArgument("queue_depth " + std::to_string(queue_depth) +
                                   " not in [1, 65536]");
  }
  if (block_size != 0 &&
      (block_size < 512 || block_size > kMaxBlockSize || (block_size & (block_size - 1)) != 0)) {
    return Status::InvalidArgument("block_size " + std::to_string(block_size) +
                                   " is not 0 or a power of two in [512, 1 MiB]");
  }
  if (fail_uring_setup_errno < 0) {
    return Status::InvalidArgument("fail_uring_setup_errno " +
                                   std::to_string(fail_uring_setup_errno) + " is negative");
  }
  return Status::Ok();
}

// One read or write, possibly completed in several kernel operations (short transfers).
struct FileDevice::Transfer {
  bool is_write = false;
  uint64_t offset = 0;
  size_t length = 0;
  size_t done = 0;
  std::byte* data = nullptr;      // what the kernel reads or fills: user buffer or bounce
  size_t repeat = 0;              // > 0: write data[0, repeat) over and over (zero fill)
  std::span<std::byte> copy_out;  // read through a bounce buffer: copy here on success
  AlignedBuffer bounce;
  int rw_flags = 0;
  bool sync_after = false;  // emulated FUA: fdatasync once the data is written
  IoCallback cb;
  // Where the chunk in flight completes: its callback holds only this Transfer's address, small
  // enough for std::function's inline buffer.
  FileDevice* device = nullptr;
  IoQueue* queue = nullptr;
};

void FileDevice::TransferDelete::operator()(Transfer* t) const {
  t->~Transfer();
  SlotPool::Release(t, sizeof(Transfer));
}

FileDevice::TransferPtr FileDevice::NewTransfer() {
  return TransferPtr(new (SlotPool::Allocate(sizeof(Transfer))) Transfer());
}

Result<std::unique_ptr<FileDevice>> FileDevice::Open(const std::string& path,
                                                     const FileDeviceOptions& options) {
  Status valid = options.validate();
  if (!valid.ok()) return Status::InvalidArgument(path + ": " + valid.message());
  bool uring = options.backend != IoBackend::kAio;
  if (uring) {
    Status probe = ProbeUring(options);
    if (!probe.ok() && options.backend == IoBackend::kUring) {
      return Status::NotSupported(path + ": io_uring is not usable here (" + probe.message() +
                                  "); the libaio backend is");
    }
    uring = probe.ok();  // kAuto: libaio where io_uring is refused
  }
  auto fd = OpenFd(path, options);
  if (!fd.ok()) return fd.status();
  auto geometry = ProbeGeometry(*fd, path, options);
  if (!geometry.ok()) {
    close(*fd);
    return geometry.status();
  }
  const Geometry& g = geometry.value();
  return std::unique_ptr<FileDevice>(
      new FileDevice(path, *fd, g.size, g.block_size, g.is_block_device, options, uring));
}

FileDevice::FileDevice(const std::string& path, int fd, uint64_t size, uint32_t block_size,
                       bool is_block_device, const FileDeviceOptions& options, bool uring)
    : Device(path, size, block_size),
      fd_(fd),
      is_block_device_(is_block_device),
      options_(options),
      native_fua_(!options.emulate_fua),
      native_fdsync_(!options.emulate_flush),
      try_uring_(uring),
      worker_(std::make_unique<BlockingWorker>()) {}

FileDevice::~FileDevice() {
  std::unordered_map<EventLoop*, std::unique_ptr<IoQueue>> contexts;
  {
    std::lock_guard lock(mu_);
    contexts.swap(contexts_);
  }
  for (auto& [loop, ctx] : contexts) {
    // The eventfd must be unwatched on its own loop's thread; the task owns the context.
    std::shared_ptr<IoQueue> owned(std::move(ctx));
    loop->post([owned] { owned->unwatch(); });
  }
  worker_.reset();  // runs what is queued (nothing, when idle) and joins
  close(fd_);
}

Result<IoQueue*> FileDevice::context_for_current_loop() {
  EventLoop* loop = EventLoop::current();
  assert(loop != nullptr && "device I/O must be submitted from an event loop");
  std::lock_guard lock(mu_);
  auto it = contexts_.find(loop);
  if (it != contexts_.end()) return it->second.get();
  auto queue = make_queue(*loop);
  if (!queue.ok()) return queue.status();
  IoQueue* raw = queue.value().get();
  contexts_.emplace(loop, std::move(queue).value());
  return raw;
}

Result<std::unique_ptr<IoQueue>> FileDevice::make_queue(EventLoop& loop) {
  // Open() found io_uring usable (the test hook made it fail there already).
  Status uring_error;
  if (try_uring_.load(std::memory_order_relaxed)) {
    auto uring = UringContext::Create(loop, options_.queue_depth, fd_);
    if (uring.ok()) return std::unique_ptr<IoQueue>(std::move(uring).value());
    if (options_.backend == IoBackend::kUring) {
      return QueueSetupError(name(), "io_uring", uring.status());
    }
    uring_error = uring.status();
  }
  auto aio = AioContext::Create(loop, options_.queue_depth);
  if (!aio.ok()) return QueueSetupError(name(), "AIO", aio.status());
  // io_uring refused where libaio works (not a loop without fds): do not ask again.
  if (!uring_error.ok()) try_uring_.store(false, std::memory_order_relaxed);
  return std::unique_ptr<IoQueue>(std::move(aio).value());
}

std::string FileDevice::backend_name() const {
  std::lock_guard lock(mu_);
  bool uring = false, aio = false;
  for (const auto& [loop, queue] : contexts_) {
    (std::string_view(queue->backend_name()) == "io_uring" ? uring : aio) = true;
  }
  if (!uring && !aio) return try_uring_.load(std::memory_order_relaxed) ? "io_uring" : "libaio";
  return uring && aio ? "io_uring+libaio" : uring ? "io_uring" : "libaio";
}

IoQueueCounters FileDevice::io_counters() const {
  std::lock_guard lock(mu_);
  IoQueueCounters sum;
  for (const auto& [loop, queue] : contexts_) sum += queue->counters();
  return sum;
}

Status FileDevice::read_only_error(const char* op) const {
  return Status::InvalidArgument(name() + ": " + op + " on a device opened read-only");
}

void FileDevice::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  auto ctx = context_for_current_loop();
  if (!ctx.ok()) return complete_later(std::move(cb), ctx.status());
  auto t = NewTransfer();
  t->offset = offset;
  t->length = buf.size();
  t->data = buf.data();
  t->cb = std::move(cb);
  if (!options_.buffered && reinterpret_cast<uintptr_t>(buf.data()) % block_size() != 0) {
    t->bounce = AllocAligned(block_size(), buf.size());
    if (!t->bounce) return complete_later(std::move(t->cb), Status::NoSpace("bounce buffer"));
    t->data = t->bounce.get();
    t->copy_out = buf;
  }
  submit_chunk(**ctx, std::move(t));
}

void FileDevice::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                            IoCallback cb) {
  if (options_.read_only) return complete_later(std::move(cb), read_only_error("write"));
  auto ctx = context_for_current_loop();
  if (!ctx.ok()) return complete_later(std::move(cb), ctx.status());
  auto t = NewTransfer();
  t->is_write = true;
  t->offset = offset;
  t->length = buf.size();
  // The kernel only reads from it; Transfer keeps one non-const pointer for both directions.
  t->data = const_cast<std::byte*>(buf.data());
  t->cb = std::move(cb);
  if (!options_.buffered && reinterpret_cast<uintptr_t>(buf.data()) % block_size() != 0) {
    t->bounce = AllocAligned(block_size(), buf.size());
    if (!t->bounce) return complete_later(std::move(t->cb), Status::NoSpace("bounce buffer"));
    std::memcpy(t->bounce.get(), buf.data(), buf.size());
    t->data = t->bounce.get();
  }
  if (flags.fua) {
    if (native_fua_.load(std::memory_order_relaxed)) {
      t->rw_flags = RWF_DSYNC;
    } else {
      t->sync_after = true;
    }
  }
  submit_chunk(**ctx, std::move(t));
}

void FileDevice::submit_chunk(IoQueue& ctx, TransferPtr t) {
  IoOp op;
  op.kind = t->is_write ? IoOp::Kind::kWrite : IoOp::Kind::kRead;
  op.fd = fd_;
  size_t left = t->length - t->done;
  if (t->repeat > 0) {
    op.buf = t->data;
    op.length = std::min(left, t->repeat);
  } else {
    op.buf = t->data + t->done;
    op.length = left;
  }
  op.offset = t->offset + t->done;
  op.rw_flags = t->rw_flags;
  t->device = this;
  t->queue = &ctx;
  op.done = [raw = t.release()](long res) {
    raw->device->on_chunk_done(*raw->queue, TransferPtr(raw), res);
  };
  ctx.submit(std::move(op));
}

void FileDevice::on_chunk_done(IoQueue& ctx, TransferPtr t, long res) {
  if (res == -EINVAL && (t->rw_flags & RWF_DSYNC) != 0) {
    // A kernel without per-request RWF_DSYNC: emulate FUA from now on.
    native_fua_.store(false, std::memory_order_relaxed);
    t->rw_flags &= ~RWF_DSYNC;
    t->sync_after = true;
    return submit_chunk(ctx, std::move(t));
  }
  const char* op = t->is_write ? "pwrite " : "pread ";
  uint64_t at = t->offset + t->done;
  if (res < 0) {
    Status s =
        Status::FromErrno(static_cast<int>(-res), op + name() + Range(at, t->length - t->done));
    return finish_transfer(std::move(t), std::move(s));
  }
  if (res == 0) {
    Status s = Status::IoError(op + name() + Range(at, t->length - t->done) +
                               ": no progress (file shrunk?)");
    return finish_transfer(std::move(t), std::move(s));
  }
  t->done += static_cast<size_t>(res);
  if (t->done < t->length) return submit_chunk(ctx, std::move(t));  // short transfer
  if (t->sync_after) {
    return datasync(ctx, [this, raw = t.release()](Status s) {
      finish_transfer(TransferPtr(raw), std::move(s));
    });
  }
  finish_transfer(std::move(t), Status::Ok());
}

void FileDevice::finish_transfer(TransferPtr t, Status s) {
  if (s.ok() && !t->copy_out.empty()) {
    std::memcpy(t->copy_out.data(), t->bounce.get(), t->copy_out.size());
  }
  IoCallback cb = std::move(t->cb);
  t.reset();  // free the bounce buffer before the caller continues
  cb(std::move(s));
}

void FileDevice::flush_impl(IoCallback cb) {
  auto ctx = context_for_current_loop();
  if (!ctx.ok()) return complete_later(std::move(cb), ctx.status());
  datasync(**ctx, std::move(cb));
}

void FileDevice::datasync(IoQueue& ctx, IoCallback cb) {
  if (!native_fdsync_.load(std::memory_order_relaxed)) {
    return datasync_on_worker(ctx, std::move(cb));
  }
  IoOp op;
  op.kind = IoOp::Kind::kDatasync;
  op.fd = fd_;
  op.done = [this, &ctx, cb = std::move(cb)](long res) mutable {
    if (res == -EINVAL || res == -EOPNOTSUPP) {
      // No queued fdatasync for this file: use the helper thread from now on.
      native_fdsync_.store(false, std::memory_order_relaxed);
      return datasync_on_worker(ctx, std::move(cb));
    }
    cb(res < 0 ? Status::FromErrno(static_cast<int>(-res), "fdatasync " + name()) : Status::Ok());
  };
  ctx.submit(std::move(op));
}

void FileDevice::datasync_on_worker(IoQueue& ctx, IoCallback cb) {
  int fd = fd_;
  run_blocking(
      ctx, [fd] { return fdatasync(fd) == 0 ? 0 : errno; }, "fdatasync " + name(), std::move(cb));
}

void FileDevice::run_blocking(IoQueue& ctx, std::function<int()> job, std::string what,
                              IoCallback cb) {
  worker_->run(ctx.loop(), std::move(job), [what = std::move(what), cb = std::move(cb)](int err) {
    cb(err == 0 ? Status::Ok() : Status::FromErrno(err, what));
  });
}

int FileDevice::punch_hole(uint64_t offset, uint64_t length) {
  int mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
  return fallocate(fd_, mode, static_cast<off_t>(offset), static_cast<off_t>(length)) == 0 ? 0
                                                                                           : errno;
}

int FileDevice::fallocate_zeroes(uint64_t offset, uint64_t length) {
  if (is_block_device_) {
    uint64_t range[2] = {offset, length};
    return ioctl(fd_, BLKZEROOUT, range) == 0 ? 0 : errno;
  }
  int mode = FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE;
  if (fallocate(fd_, mode, static_cast<off_t>(offset), static_cast<off_t>(length)) == 0) return 0;
  if (errno != EOPNOTSUPP) return errno;
  return punch_hole(offset, length);
}

void FileDevice::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  if (options_.read_only) return complete_later(std::move(cb), read_only_error("discard"));
  auto ctx = context_for_current_loop();
  if (!ctx.ok()) return complete_later(std::move(cb), ctx.status());
  IoQueue& c = **ctx;
  std::string what = (is_block_device_ ? "BLKDISCARD " : "fallocate(PUNCH_HOLE) ") + name() +
                     Range(offset, length);
  auto job = [this, offset, length] {
    if (!is_block_device_) return punch_hole(offset, length);
    uint64_t range[2] = {offset, length};
    return ioctl(fd_, BLKDISCARD, range) == 0 ? 0 : errno;
  };
  auto done = [this, &c, offset, length, what = std::move(what), cb = std::move(cb)](int err) {
    // Files on filesystems without hole punching still read back zeros after a discard.
    if (err == EOPNOTSUPP && !is_block_device_) {
      return write_zero_buffers(c, offset, length, WriteFlags{}, cb);
    }
    cb(err == 0 ? Status::Ok() : Status::FromErrno(err, what));
  };
  worker_->run(c.loop(), std::move(job), std::move(done));
}

void FileDevice::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                                   IoCallback cb) {
  if (options_.read_only) return complete_later(std::move(cb), read_only_error("write_zeroes"));
  auto ctx = context_for_current_loop();
  if (!ctx.ok()) return complete_later(std::move(cb), ctx.status());
  IoQueue& c = **ctx;
  if (options_.emulate_write_zeroes) return write_zero_buffers(c, offset, length, flags, cb);
  std::string what = (is_block_device_ ? "BLKZEROOUT " : "fallocate(ZERO_RANGE) ") + name() +
                     Range(offset, length);
  auto job = [this, offset, length, fua = flags.fua] {
    int err = fallocate_zeroes(offset, length);
    if (err == 0 && fua && fdatasync(fd_) != 0) err = errno;
    return err;
  };
  auto done = [this, &c, offset, length, flags, what = std::move(what),
               cb = std::move(cb)](int err) {
    if (err == EOPNOTSUPP) return write_zero_buffers(c, offset, length, flags, cb);
    cb(err == 0 ? Status::Ok() : Status::FromErrno(err, what));
  };
  worker_->run(c.loop(), std::move(job), std::move(done));
}

void FileDevice::write_zero_buffers(IoQueue& ctx, uint64_t offset, uint64_t length,
                                    WriteFlags flags, IoCallback cb) {
  auto t = NewTransfer();
  t->is_write = true;
  t->offset = offset;
  t->length = length;
  t->repeat = static_cast<size_t>(std::min<uint64_t>(length, kZeroBufferBytes));
  t->bounce = AllocAligned(block_size(), t->repeat);
  if (!t->bounce) return cb(Status::NoSpace(name() + ": zero buffer"));
  std::memset(t->bounce.get(), 0, t->repeat);
  t->data = t->bounce.get();
  t->cb = std::move(cb);
  if (flags.fua) t->sync_after = true;
  submit_chunk(ctx, std::move(t));
}

bool FileDevice::unlinked() const {
  struct stat st {};
  return fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0;
}

}  // namespace tiercache
