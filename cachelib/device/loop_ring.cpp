#include "cachelib/device/loop_ring.h"

#include <sys/epoll.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <unordered_map>

#include "cachelib/common/pooled_once.h"

namespace tiercache {
namespace {

// Room for every completion of a loop's devices and sockets; the kernel keeps any overflow
// (IORING_FEAT_NODROP) and submit() then retries.
constexpr uint32_t kCqEntries = 16384;
// File table slots: a loop has a handful of devices.
constexpr uint32_t kFileSlots = 16;
// Buffer table slots: a loop's buffer pool registers a few MiB per slot (16 for 64 MiB).
constexpr uint32_t kBufferSlots = 64;

// TIERCACHE_NO_FIXED_BUFFERS=1: no buffer table (the A/B in docs/performance.md);
// TIERCACHE_NO_VECTORED_FIXED=1: a table, but vectored operations do not use it;
// TIERCACHE_SUBMIT_PER_ROUND=1: disk operations too go at the end of the round (submit_each()).
bool Disabled(const char* variable) {
  const char* v = std::getenv(variable);
  return v != nullptr && v[0] == '1';
}

// Whether the kernel knows both vectored fixed opcodes (the probe lists supported opcodes).
bool ProbeVectoredFixed(io_uring* ring) {
  io_uring_probe* probe = io_uring_get_probe_ring(ring);
  if (probe == nullptr) return false;
  const bool ok = io_uring_opcode_supported(probe, LoopRing::kOpReadvFixed) &&
                  io_uring_opcode_supported(probe, LoopRing::kOpWritevFixed);
  io_uring_free_probe(probe);
  return ok;
}

// No IORING_SETUP_IOPOLL and no SQPOLL: IORING_OP_URING_CMD works on a plain ring, and a ublk
// I/O command (16 bytes) fits a 64-byte entry, so UblkLoopRingCommands needs no SQE128; the
// commands also leave from this loop's thread, which the ublk driver requires of a queue.
// Kernels before 5.18 refuse IORING_SETUP_SUBMIT_ALL with EINVAL: then without it (a refused SQE
// then stops its submit call, and submit() submits the rest again).
int InitRing(io_uring* ring) {
  int r = -EINVAL;
  for (unsigned extra : {unsigned{IORING_SETUP_SUBMIT_ALL}, 0u}) {
    io_uring_params p{};
    p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP | extra;
    p.cq_entries = kCqEntries;
    r = io_uring_queue_init_params(LoopRing::kSqEntries, ring, &p);
    if (r != -EINVAL) break;
  }
  return r;
}

// Holds a retired id: not null, so attach() never reuses it; drops what still arrives for it.
class RetiredClient final : public LoopRing::Client {
 public:
  void on_completion(uint32_t, int32_t) override {}
};
RetiredClient retired_client;

std::mutex registry_mu;
std::unordered_map<EventLoop*, std::weak_ptr<LoopRing>>& Registry() {
  static auto* registry = new std::unordered_map<EventLoop*, std::weak_ptr<LoopRing>>();
  return *registry;
}

}  // namespace

Result<std::shared_ptr<LoopRing>> LoopRing::ForLoop(EventLoop& loop) {
  {
    std::lock_guard lock(registry_mu);
    auto it = Registry().find(&loop);
    if (it != Registry().end()) {
      if (auto ring = it->second.lock()) return ring;
    }
  }
  // Only `loop`'s thread creates its ring, so nobody else can race this one in; a ring that
  // fails its setup is destroyed outside the lock its destructor takes.
  std::shared_ptr<LoopRing> ring(new LoopRing(loop));
  TC_RETURN_IF_ERROR(ring->setup());
  std::lock_guard lock(registry_mu);
  Registry()[&loop] = ring;
  generation_.fetch_add(1, std::memory_order_relaxed);
  return ring;
}

std::shared_ptr<LoopRing> LoopRing::Existing(EventLoop& loop) {
  std::lock_guard lock(registry_mu);
  auto it = Registry().find(&loop);
  return it == Registry().end() ? nullptr : it->second.lock();
}

LoopRing::LoopRing(EventLoop& loop) : loop_(loop) {}

LoopRing::~LoopRing() {
  {
    std::lock_guard lock(registry_mu);
    auto it = Registry().find(&loop_);
    if (it != Registry().end() && it->second.expired()) Registry().erase(it);
  }
  // Off the loop's thread the loop is gone or going (its posted tasks destroyed with it): its
  // fd table is not ours to touch.
  if (loop_.in_loop_thread()) {
    if (watched_) loop_.unwatch_fd(eventfd_);
    if (waiter_installed_) loop_.remove_waiter(this);
  }
  if (ring_ready_) io_uring_queue_exit(&ring_);
  if (eventfd_ >= 0) ::close(eventfd_);
}

Status LoopRing::setup() {
  int r = InitRing(&ring_);
  if (r < 0) return Status::FromErrno(-r, "io_uring_queue_init");
  ring_ready_ = true;
  submit_each_ = !Disabled("TIERCACHE_SUBMIT_PER_ROUND");
  // Optional (kernel 5.19+): without it every operation names its fd.
  if (io_uring_register_files_sparse(&ring_, kFileSlots) == 0) files_.assign(kFileSlots, false);
  // Optional too (5.19+): without it every read and write pins its pages.
  if (!Disabled("TIERCACHE_NO_FIXED_BUFFERS") &&
      io_uring_register_buffers_sparse(&ring_, kBufferSlots) == 0) {
    buffer_slots_.assign(kBufferSlots, false);
    vectored_fixed_ = !Disabled("TIERCACHE_NO_VECTORED_FIXED") && ProbeVectoredFixed(&ring_);
  }
  if (loop_.install_waiter(this)) {
    waiter_installed_ = true;
    return Status::Ok();
  }
  eventfd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (eventfd_ < 0) return Status::FromErrno(errno, "eventfd");
  r = io_uring_register_eventfd(&ring_, eventfd_);
  if (r < 0) return Status::FromErrno(-r, "io_uring_register_eventfd");
  TC_RETURN_IF_ERROR(loop_.watch_fd(eventfd_, EPOLLIN, [this](uint32_t) { on_eventfd(); }));
  watched_ = true;
  return Status::Ok();
}

uint32_t LoopRing::attach(Client* client) {
  for (uint32_t id = 0; id < clients_.size(); ++id) {
    if (clients_[id] == nullptr) {
      clients_[id] = client;
      return id;
    }
  }
  clients_.push_back(client);
  return static_cast<uint32_t>(clients_.size() - 1);
}

void LoopRing::detach(uint32_t id) { clients_[id] = nullptr; }

void LoopRing::retire(uint32_t id) { clients_[id] = &retired_client; }

int LoopRing::register_file(int fd) {
  for (size_t i = 0; i < files_.size(); ++i) {
    if (files_[i]) continue;
    if (io_uring_register_files_update(&ring_, unsigned(i), &fd, 1) != 1) return -1;
    files_[i] = true;
    return static_cast<int>(i);
  }
  return -1;
}

void LoopRing::unregister_file(int index) {
  if (index < 0) return;
  int none = -1;
  io_uring_register_files_update(&ring_, unsigned(index), &none, 1);
  files_[size_t(index)] = false;
}

std::vector<LoopRing::BufferRegion>::const_iterator LoopRing::region_after(uintptr_t p) const {
  return std::upper_bound(regions_.begin(), regions_.end(), p,
                          [](uintptr_t b, const BufferRegion& r) { return b < r.begin; });
}

int LoopRing::register_buffer(void* base, size_t bytes) {
  const auto begin = reinterpret_cast<uintptr_t>(base);
  const uintptr_t end = begin + bytes;
  auto next = region_after(begin);
  if (bytes == 0 || (next != regions_.end() && next->begin < end) ||
      (next != regions_.begin() && std::prev(next)->end > begin)) {
    return -1;  // find_buffer() needs disjoint regions
  }
  auto slot = std::find(buffer_slots_.begin(), buffer_slots_.end(), false);
  if (slot == buffer_slots_.end()) return -1;
  const auto index = static_cast<int>(slot - buffer_slots_.begin());
  iovec iov{base, bytes};
  __u64 tag = 0;  // no completion when the kernel lets go of it
  if (io_uring_register_buffers_update_tag(&ring_, unsigned(index), &iov, &tag, 1) != 1) {
    return -1;
  }
  *slot = true;
  regions_.insert(next, BufferRegion{begin, end, index});
  return index;
}

void LoopRing::unregister_buffer(int index) {
  if (index < 0) return;
  iovec none{nullptr, 0};
  __u64 tag = 0;
  io_uring_register_buffers_update_tag(&ring_, unsigned(index), &none, &tag, 1);
  buffer_slots_[size_t(index)] = false;
  std::erase_if(regions_, [index](const BufferRegion& r) { return r.index == index; });
}

int LoopRing::find_buffer(const void* p, size_t len) const {
  const auto begin = reinterpret_cast<uintptr_t>(p);
  auto next = region_after(begin);
  if (next == regions_.begin()) return -1;
  const BufferRegion& r = *std::prev(next);
  return begin + len <= r.end ? r.index : -1;
}

int LoopRing::find_buffer(std::span<const iovec> iov) const {
  if (!vectored_fixed_ || iov.empty()) return -1;
  const int index = find_buffer(iov[0].iov_base, iov[0].iov_len);
  for (const iovec& v : iov.subspan(1)) {
    if (index < 0 || find_buffer(v.iov_base, v.iov_len) != index) return -1;
  }
  return index;
}

io_uring_sqe* LoopRing::get_disk_sqe() {
  // Every entry handed out before this one is filled: its caller labelled it before returning.
  if (submit_each_ && disk_queued_) submit_early();
  io_uring_sqe* sqe = get_sqe();
  disk_queued_ = true;
  return sqe;
}

io_uring_sqe* LoopRing::get_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    submit();  // the queue is full of this round's operations: hand them over now
    sqe = io_uring_get_sqe(&ring_);
    assert(sqe != nullptr);
  }
  // Sleeping for the loop, the ring submits when the round ends anyway (wait()).
  if (!waiter_installed_) submit_later(Nanos(0));
  return sqe;
}

void LoopRing::submit_later(Nanos delay) {
  if (submit_posted_) return;
  submit_posted_ = true;
  // Pooled: a weak_ptr is not trivially copyable, so std::function would allocate it.
  auto task = PooledOnce([weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->submit_posted_ = false;
      self->submit();
    }
  });
  if (delay == Nanos(0)) {
    loop_.post(std::move(task));  // everything prepared in this round goes in one call
  } else {
    loop_.schedule_after(delay, std::move(task));
  }
}

void LoopRing::submit() {
  while (io_uring_sq_ready(&ring_) > 0) {
    int r = io_uring_submit(&ring_);
    if (r > 0) {
      enters_.fetch_add(1, std::memory_order_relaxed);
      sqes_.fetch_add(uint64_t(r), std::memory_order_relaxed);
      submitted();
      continue;
    }
    if (r == -EINTR) continue;
    // EAGAIN/EBUSY: the kernel is short of memory or holds overflowed completions. The entries
    // stay queued; reap and try again shortly (a completion may not come: all may be here).
    reap();
    submit_later(std::chrono::milliseconds(1));
    return;
  }
}

void LoopRing::submit_early() {
  int r = io_uring_submit(&ring_);
  if (r > 0) {
    enters_.fetch_add(1, std::memory_order_relaxed);
    sqes_.fetch_add(uint64_t(r), std::memory_order_relaxed);
    submitted();
  }
  // A refusal (EAGAIN, EBUSY, EINTR) leaves the entries queued for the end of the round, whose
  // submission copes with it. No reap here, unlike submit(): a completion's callback must not
  // run inside the get_disk_sqe() of a client that is preparing an operation.
}

void LoopRing::on_eventfd() {
  // A completion may drop the last other reference (a connection that ends): finish first.
  std::shared_ptr<LoopRing> self = shared_from_this();
  uint64_t count;
  ssize_t n = ::read(eventfd_, &count, sizeof count);
  (void)n;  // EAGAIN: nothing new; the peek below finds out anyway
  waits_.fetch_add(1, std::memory_order_relaxed);
  reap();
}

bool LoopRing::wait(int epfd, bool block) {
  std::shared_ptr<LoopRing> self = shared_from_this();  // as in on_eventfd()
  epoll_ready_ = false;
  unsigned own = 0;  // the watch of the epoll fd, when (re-)armed now
  if (!epoll_watch_armed_) {
    io_uring_sqe* sqe = get_sqe();  // (waiting for the loop: it posts no submit)
    io_uring_prep_poll_add(sqe, epfd, POLLIN);
    label(sqe, kEpollWatch, 0);
    epoll_watch_armed_ = true;
    own = 1;
  }
  // The round's operations go to the kernel here, with the sleep when there is one: one call.
  const unsigned clients = io_uring_sq_ready(&ring_) - own;
  int r = 0;
  if (block) {
    r = io_uring_submit_and_wait(&ring_, 1);
    waits_.fetch_add(1, std::memory_order_relaxed);
  } else if (io_uring_sq_ready(&ring_) > 0) {
    r = io_uring_submit(&ring_);
  }
  if (clients > 0 && r > 0) {
    enters_.fetch_add(1, std::memory_order_relaxed);
    sqes_.fetch_add(std::min<uint64_t>(clients, uint64_t(r)), std::memory_order_relaxed);
  }
  if (r > 0) submitted();
  // (EINTR, EBUSY: what was not submitted stays queued for the next call.)
  reap();
  return epoll_ready_;
}

void LoopRing::reap() {
  io_uring_cqe* cqe = nullptr;
  while (io_uring_peek_cqe(&ring_, &cqe) == 0) {
    const uint64_t data = io_uring_cqe_get_data64(cqe);
    const int32_t res = cqe->res;
    io_uring_cqe_seen(&ring_, cqe);  // before the callback, which may prepare more operations
    const auto id = static_cast<uint32_t>(data >> 32);
    if (id == kEpollWatch) {
      epoll_watch_armed_ = false;
      epoll_ready_ = true;  // (an error too: the loop's epoll_wait says what it is)
    } else if (id < clients_.size() && clients_[id] != nullptr) {
      clients_[id]->on_completion(static_cast<uint32_t>(data), res);
    }
  }
}

LoopRing::Counters LoopRing::counters() const {
  return Counters{enters_.load(std::memory_order_relaxed), sqes_.load(std::memory_order_relaxed),
                  waits_.load(std::memory_order_relaxed)};
}

}  // namespace tiercache
