// FileDevice: a Device on a regular file or a block device, O_DIRECT by default, through io_uring
// or, where io_uring is missing or refused, Linux AIO (libaio). Each event loop that submits gets
// its own queue (UringContext on the loop's shared ring, or AioContext with its own eventfd),
// created lazily and reaped by that loop;
// blocking calls (fdatasync fallback, fallocate, discard ioctls) run on one helper thread.
// Thread-safe: any number of loops may share one FileDevice.
//
// Lifetime: destroy the FileDevice only when no request is in flight, and before the event loops
// that used it. The destructor posts to each such loop a task that unwatches the loop's eventfd and
// frees its queue (if the loop never runs it again, the task and queue die with the loop).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cachelib/device/device.h"
#include "cachelib/device/io_backend.h"
#include "cachelib/device/io_queue.h"

namespace tiercache {

class EventLoop;
class BlockingWorker;

struct FileDeviceOptions {
  // Open without O_DIRECT: I/O goes through the page cache (needed where O_DIRECT is refused).
  // Default: false.
  bool buffered = false;
  // Open O_RDONLY: writes, write_zeroes and discards fail with InvalidArgument. Default: false.
  bool read_only = false;
  // Requests in the kernel per event loop; more wait in a per-loop FIFO. 1..65536. Default: 128.
  uint32_t queue_depth = 128;
  // Logical block size in bytes; 0 detects it: BLKSSZGET for block devices, 4096 for files.
  // Otherwise a power of two >= 512 (and a multiple of a block device's own). Default: 0.
  uint32_t block_size = 0;
  // Open a block device O_EXCL, so that it cannot be mounted or claimed exclusively (by another
  // tiercached, md, device-mapper) while this device is open, and opening one that is fails with
  // Busy. No effect on regular files, where O_EXCL does not apply (tiercached flocks those, see
  // InstanceLock). Default: true.
  bool exclusive = true;
  // Emulate FUA with write + fdatasync even where RWF_DSYNC works (testing). Default: false.
  bool emulate_fua = false;
  // Run fdatasync on the helper thread even where the queue's own (IORING_OP_FSYNC,
  // IOCB_CMD_FDSYNC) works (testing). Default: false.
  bool emulate_flush = false;
  // Write zero buffers even where fallocate/BLKZEROOUT work (testing). Default: false.
  bool emulate_write_zeroes = false;
  // Kernel interface. Default: kAuto.
  IoBackend backend = IoBackend::kAuto;
  // Testing: io_uring setup fails with this errno (e.g. ENOSYS, as under seccomp) instead of
  // asking the kernel; 0 asks the kernel. Default: 0.
  int fail_uring_setup_errno = 0;

  Status validate() const;
};

class FileDevice final : public Device {
 public:
  // Opens an existing file or block device. Errors name the path: NotFound when it does not
  // exist, InvalidArgument when the filesystem refuses O_DIRECT (use buffered) or on bad options,
  // Busy when `exclusive` and the block device is mounted or held exclusively elsewhere.
  static Result<std::unique_ptr<FileDevice>> Open(const std::string& path,
                                                  const FileDeviceOptions& options = {});
  ~FileDevice() override;

  bool is_block_device() const { return is_block_device_; }
  // True when the device is a regular file no directory names any more (deleted while open): its
  // data goes when the file is closed.
  bool unlinked() const;
  const FileDeviceOptions& options() const { return options_; }
  // The backend in use: "io_uring" or "libaio" ("io_uring+libaio" if io_uring was refused on some
  // loops only). Before any I/O: the one Open() found usable. Thread-safe.
  std::string backend_name() const;
  // Queue counters summed over every loop's queue (mean device queue depth). Thread-safe.
  IoQueueCounters io_counters() const;

 protected:
  // A disk's buffer keeps what a read brought in (and its read-ahead runs on): a real read.
  void prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) override {
    prefetch_by_reading(offset, length, std::move(cb));
  }
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override;
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override;
  void flush_impl(IoCallback cb) override;
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override;
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override;

 private:
  struct Transfer;
  // Transfers live in the loop's SlotPool: one per operation, so an I/O costs no heap allocation.
  struct TransferDelete {
    void operator()(Transfer* t) const;
  };
  using TransferPtr = std::unique_ptr<Transfer, TransferDelete>;
  static TransferPtr NewTransfer();

  FileDevice(const std::string& path, int fd, uint64_t size, uint32_t block_size,
             bool is_block_device, const FileDeviceOptions& options, bool uring);
  // The calling loop's queue, created on first use. REQUIRES: on an event loop.
  Result<IoQueue*> context_for_current_loop();
  // io_uring unless refused (kAuto: then libaio from now on), or libaio.
  Result<std::unique_ptr<IoQueue>> make_queue(EventLoop& loop);
  Status read_only_error(const char* op) const;

  void submit_chunk(IoQueue& ctx, TransferPtr t);
  void on_chunk_done(IoQueue& ctx, TransferPtr t, long res);
  void finish_transfer(TransferPtr t, Status s);
  // fdatasync without blocking the loop: through the queue, else on the helper thread.
  void datasync(IoQueue& ctx, IoCallback cb);
  void datasync_on_worker(IoQueue& ctx, IoCallback cb);
  // Runs `job` (returns 0 or errno) on the helper thread; cb(status) on ctx's loop.
  void run_blocking(IoQueue& ctx, std::function<int()> job, std::string what, IoCallback cb);
  void write_zero_buffers(IoQueue& ctx, uint64_t offset, uint64_t length, WriteFlags flags,
                          IoCallback cb);
  int fallocate_zeroes(uint64_t offset, uint64_t length);
  int punch_hole(uint64_t offset, uint64_t length);

  const int fd_;
  const bool is_block_device_;
  const FileDeviceOptions options_;
  std::atomic<bool> native_fua_;
  std::atomic<bool> native_fdsync_;
  // kAuto: io_uring not refused so far; turns false (for good) when it is.
  std::atomic<bool> try_uring_;

  std::unique_ptr<BlockingWorker> worker_;
  mutable std::mutex mu_;
  std::unordered_map<EventLoop*, std::unique_ptr<IoQueue>> contexts_;  // GUARDED_BY(mu_)
};

}  // namespace tiercache
