// LoopRing: the one io_uring of an event loop, shared by everything on that loop that does
// kernel I/O through a ring: the file devices' queues (UringContext) and the NBD sockets
// (RingSocket). A loop round's operations go to the kernel at its end, disk and network alike,
// except that each disk operation goes as soon as the next one is prepared, taking whatever else
// is queued along (submit_each()). On an EpollEventLoop the ring also does the loop's sleeping
// (LoopWaiter): it watches the epoll fd itself, so one io_uring_enter submits what is left, sleeps
// until an fd event or a completion, and returns with the completions. On other loops with fds an
// eventfd the loop watches brings the completions back.
// It also keeps the loop's registered buffers: memory pinned once, so reads and writes into it
// go out as READ_FIXED/WRITE_FIXED without per-operation page pinning.
// Created on first use per loop (ForLoop) and shared: it goes away with its last user.
// Loop-thread only, including destruction of the last reference (Generation() and Existing()
// excepted).
#pragma once

#include <liburing.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cachelib/common/event_loop.h"

namespace tiercache {

class LoopRing : public std::enable_shared_from_this<LoopRing>, private LoopWaiter {
 public:
  // Something whose operations run on the ring. Every completion of an operation it prepared
  // comes back to it, on the loop, with the tag it gave and the kernel's result.
  class Client {
   public:
    virtual void on_completion(uint32_t tag, int32_t res) = 0;

   protected:
    ~Client() = default;
  };

  // Counters of the whole ring (all clients). Thread-safe snapshot.
  struct Counters {
    uint64_t enters = 0;  // io_uring_enter calls that submitted before a loop's sleep
    uint64_t sqes = 0;    // clients' operations submitted
    uint64_t waits = 0;   // sleeps: the loop's (waiting on the ring) or eventfd wake-ups
  };

  // The ring of `loop`, created (and its eventfd watched) on the first call on that loop.
  // Errors: io_uring refused (ENOSYS under seccomp, EPERM with kernel.io_uring_disabled), or
  // NotSupported on loops without fds (SimEventLoop). REQUIRES: called on `loop`'s thread.
  static Result<std::shared_ptr<LoopRing>> ForLoop(EventLoop& loop);
  // The ring of `loop` if it has one now; never creates one. Thread-safe.
  static std::shared_ptr<LoopRing> Existing(EventLoop& loop);
  // Bumped each time a ring is created (any loop): memory owners that register buffers compare
  // it with the value they last saw, one relaxed load, to notice a new ring. Thread-safe.
  static uint64_t Generation() { return generation_.load(std::memory_order_relaxed); }
  // REQUIRES: every client detached with nothing in flight; on the loop's thread (or the loop
  // is gone).
  ~LoopRing();
  LoopRing(const LoopRing&) = delete;
  LoopRing& operator=(const LoopRing&) = delete;

  EventLoop& loop() { return loop_; }

  // A client id for get_sqe(). The client must stay alive until detach(id).
  uint32_t attach(Client* client);
  // REQUIRES: none of the client's operations is in the kernel.
  void detach(uint32_t id);
  // Detaches a client whose operations may still be in the kernel (a ublk fetch the kernel
  // never answered): their completions are dropped, and the id is never handed out again, so
  // they cannot reach a later client either. The client may go away at once.
  void retire(uint32_t id);

  // An entry for one operation, to fill with an io_uring_prep_* helper and then label(). It goes
  // to the kernel at the end of this loop round (with the loop's sleep, when the ring does it),
  // or earlier along with a disk operation's (get_disk_sqe()). Never null: a full queue is
  // submitted first.
  io_uring_sqe* get_sqe();
  // get_sqe() for a disk read, write or flush. With submit_each() on, when a disk operation's
  // entry is already queued, everything queued goes to the kernel first. A disk then gets its
  // operations one by one as requests arrive (as fio submits them), not as one convoy per round,
  // and the other entries (socket receives and sends, ublk commits) ride along with them or with
  // the loop's sleep. A virtio disk here served 4 KiB reads in 326-339 us instead of 457-475 at
  // about the same mean depth: 1.1-1.4x the NBD volume's reads at QD32 (docs/performance.md,
  // "Session 15: submitting each operation"). Costs an io_uring_enter per disk operation but the
  // last of a round.
  io_uring_sqe* get_disk_sqe();

  // Whether get_disk_sqe() hands the queue over early. On by default; TIERCACHE_SUBMIT_PER_ROUND=1
  // in the environment when the ring is created turns it off (A/B runs), as does
  // set_submit_each(false): get_disk_sqe() is then get_sqe().
  bool submit_each() const { return submit_each_; }
  void set_submit_each(bool on) { submit_each_ = on; }
  // Sends the completion of `sqe`'s operation to client `id` with `tag`. Call after the prep
  // helper (which may clear the entry's user data).
  static void label(io_uring_sqe* sqe, uint32_t id, uint32_t tag) {
    io_uring_sqe_set_data64(sqe, (uint64_t{id} << 32) | tag);
  }

  // Hands every entry prepared so far to the kernel now (the end of the round does it anyway);
  // needed before an fd they name is closed.
  void submit();

  // Entries one io_uring_enter takes; a round with more enters more than once.
  static constexpr uint32_t kSqEntries = 256;

  // Puts `fd` in the ring's file table (the kernel then skips a file lookup and reference per
  // operation): its index for IOSQE_FIXED_FILE, or -1 when the table is full or refused.
  int register_file(int fd);
  // Entries already submitted keep the file until they complete; later ones no longer find it.
  void unregister_file(int index);
  // Makes a prepared `sqe` name the file at `index` of the file table instead of an fd. Call
  // after the prep helper (which writes the fd).
  static void use_registered_file(io_uring_sqe* sqe, int index) {
    sqe->fd = index;
    sqe->flags |= IOSQE_FIXED_FILE;
  }

  // Puts [base, base + bytes) in the ring's buffer table (the kernel pins its pages once):
  // its index, or -1 when the table is full, overlaps a registered region, or the kernel refuses
  // (ENOMEM past RLIMIT_MEMLOCK without CAP_IPC_LOCK, an old kernel, TIERCACHE_NO_FIXED_BUFFERS=1
  // in the environment when the ring was created). The memory must stay mapped until
  // unregister_buffer() or the ring's end.
  int register_buffer(void* base, size_t bytes);
  // Operations already in the kernel keep their pages; new ones no longer find the region.
  void unregister_buffer(int index);
  // The index of the registered region that holds all of [p, p + len), or -1.
  int find_buffer(const void* p, size_t len) const;
  // The index of one registered region that holds every iovec of `iov`, or -1 (also when the
  // kernel has no READV_FIXED/WRITEV_FIXED: vectored_fixed()).
  int find_buffer(std::span<const iovec> iov) const;
  // Whether the kernel takes vectored operations on registered buffers (IORING_OP_READV_FIXED
  // and WRITEV_FIXED, Linux 6.15+), probed at setup; off with TIERCACHE_NO_VECTORED_FIXED=1.
  bool vectored_fixed() const { return vectored_fixed_; }
  static constexpr uint8_t kOpReadvFixed = 60;  // enum io_uring_op of Linux 6.15; liburing 2.3
  static constexpr uint8_t kOpWritevFixed = 61;  // and its headers predate them
  // Slots in the buffer table; 0 when the ring has none (refused or disabled).
  size_t buffer_slots() const { return buffer_slots_.size(); }

  Counters counters() const;
  // Whether the ring does its loop's sleeping (an EpollEventLoop), rather than an eventfd.
  bool waits_for_loop() const { return waiter_installed_; }

 private:
  // Completions of this id are the ring's own watch of the loop's epoll fd.
  static constexpr uint32_t kEpollWatch = 0xffffffff;
  explicit LoopRing(EventLoop& loop);
  Status setup();
  // One io_uring_enter for what is queued (get_disk_sqe()); never reaps.
  void submit_early();
  // Notes that the queue was handed to the kernel: a disk entry is queued no longer, unless a
  // refusal left entries behind.
  void submitted() { disk_queued_ = disk_queued_ && io_uring_sq_ready(&ring_) > 0; }
  // Submits from a task posted now (delay 0: at the end of this round) or after `delay`; once.
  void submit_later(Nanos delay);
  void on_eventfd();
  bool wait(int epfd, bool block) override;
  // Runs the callbacks of every completion in the queue.
  void reap();

  EventLoop& loop_;
  io_uring ring_{};
  bool ring_ready_ = false;
  int eventfd_ = -1;
  bool watched_ = false;
  bool waiter_installed_ = false;
  bool epoll_watch_armed_ = false;  // a poll of the loop's epoll fd is in the kernel
  bool epoll_ready_ = false;        // its completion came in this wait
  bool submit_posted_ = false;
  bool submit_each_ = true;
  bool disk_queued_ = false;  // a disk operation's entry waits in the queue
  std::vector<Client*> clients_;  // by id; nullptr when free
  std::vector<bool> files_;       // file table slots in use; empty if the table was refused
  // A registered buffer: [begin, end) at `index` in the kernel's table.
  struct BufferRegion {
    uintptr_t begin, end;
    int index;
  };
  std::vector<bool> buffer_slots_;     // buffer table slots in use; empty if refused
  bool vectored_fixed_ = false;
  std::vector<BufferRegion> regions_;  // sorted by begin, disjoint
  // The first region that begins after `p`.
  std::vector<BufferRegion>::const_iterator region_after(uintptr_t p) const;
  static inline std::atomic<uint64_t> generation_{0};
  std::atomic<uint64_t> enters_{0}, sqes_{0}, waits_{0};
};

}  // namespace tiercache
