// LoopRing: one ring per loop, completions routed to the client and tag that prepared them, one
// io_uring_enter for everything prepared in a loop round, and its file table.
#include "cachelib/device/loop_ring.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <poll.h>
#include <sys/epoll.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <utility>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/sim_event_loop.h"

namespace tiercache {
namespace {

// Records (tag, res) of each completion; fulfils `done` after `expected` of them.
class RecordingClient final : public LoopRing::Client {
 public:
  explicit RecordingClient(size_t expected) : expected_(expected) {}
  void on_completion(uint32_t tag, int32_t res) override {
    seen.emplace_back(tag, res);
    if (seen.size() == expected_) done.set_value();
  }
  std::vector<std::pair<uint32_t, int32_t>> seen;
  std::promise<void> done;

 private:
  size_t expected_;
};

void PrepareNop(LoopRing& ring, uint32_t id, uint32_t tag) {
  io_uring_sqe* sqe = ring.get_sqe();
  io_uring_prep_nop(sqe);
  LoopRing::label(sqe, id, tag);
}

// The same, in an entry asked for as a disk operation's.
void PrepareDiskNop(LoopRing& ring, uint32_t id, uint32_t tag) {
  io_uring_sqe* sqe = ring.get_disk_sqe();
  io_uring_prep_nop(sqe);
  LoopRing::label(sqe, id, tag);
}

class LoopRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = LoopThread::Start("ring-test");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    thread_ = std::move(t).value();
  }
  std::shared_ptr<LoopRing> RingOf(LoopThread& t) {
    std::shared_ptr<LoopRing> ring;
    t.run_sync([&] {
      auto r = LoopRing::ForLoop(t.loop());
      if (r.ok()) ring = std::move(r).value();
    });
    return ring;
  }
  void Drop(std::shared_ptr<LoopRing>& ring) {
    thread_->run_sync([&] { ring.reset(); });
  }
  std::unique_ptr<LoopThread> thread_;
};

TEST_F(LoopRingTest, OneRingPerLoop) {
  auto a = RingOf(*thread_);
  auto b = RingOf(*thread_);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a.get(), b.get());
  auto other = LoopThread::Start("ring-test-2");
  ASSERT_TRUE(other.ok());
  auto c = RingOf(**other);
  ASSERT_TRUE(c);
  EXPECT_NE(a.get(), c.get());
  (*other)->run_sync([&] { c.reset(); });
  Drop(a);
  Drop(b);
}

TEST_F(LoopRingTest, CompletionsReachTheirClientAndTagInOneEnterPerRound) {
  auto ring = RingOf(*thread_);
  ASSERT_TRUE(ring);
  RecordingClient first(3), second(2);
  uint32_t first_id = 0, second_id = 0;
  thread_->run_sync([&] {
    first_id = ring->attach(&first);
    second_id = ring->attach(&second);
    // One loop task: all five go to the kernel together at the end of the round.
    PrepareNop(*ring, first_id, 7);
    PrepareNop(*ring, second_id, 1);
    PrepareNop(*ring, first_id, 8);
    PrepareNop(*ring, second_id, 2);
    PrepareNop(*ring, first_id, 9);
  });
  first.done.get_future().wait();
  second.done.get_future().wait();
  thread_->run_sync([&] {
    EXPECT_EQ(first.seen, (std::vector<std::pair<uint32_t, int32_t>>{{7, 0}, {8, 0}, {9, 0}}));
    EXPECT_EQ(second.seen, (std::vector<std::pair<uint32_t, int32_t>>{{1, 0}, {2, 0}}));
    const LoopRing::Counters c = ring->counters();
    EXPECT_EQ(c.enters, 1u);
    EXPECT_EQ(c.sqes, 5u);
    ring->detach(first_id);
    ring->detach(second_id);
  });
  Drop(ring);
}

TEST_F(LoopRingTest, RoundLargerThanTheQueueEntersOncePerFullQueue) {
  auto ring = RingOf(*thread_);
  ASSERT_TRUE(ring);
  constexpr uint32_t kOps = 2 * LoopRing::kSqEntries + 10;
  RecordingClient client(kOps);
  thread_->run_sync([&] {
    const uint32_t id = ring->attach(&client);
    for (uint32_t i = 0; i < kOps; ++i) PrepareNop(*ring, id, i);
  });
  client.done.get_future().wait();
  thread_->run_sync([&] {
    EXPECT_EQ(ring->counters().enters, 3u);
    EXPECT_EQ(ring->counters().sqes, uint64_t(kOps));
    ring->detach(0);
  });
  Drop(ring);
}

// The default: asking for a disk entry first hands the queue to the kernel when a disk entry is
// in it, so a disk operation never waits for the rest of its round; other entries ride along, or
// go with the loop's sleep, as does the round's last disk entry.
TEST_F(LoopRingTest, EachDiskEntryGoesToTheKernelWhenTheNextIsAskedFor) {
  auto ring = RingOf(*thread_);
  ASSERT_TRUE(ring);
  RecordingClient client(6);
  thread_->run_sync([&] {
    EXPECT_TRUE(ring->submit_each());
    const uint32_t id = ring->attach(&client);
    PrepareNop(*ring, id, 1);      // a socket's, say: no disk entry queued before it
    PrepareDiskNop(*ring, id, 2);  // nor before this one
    EXPECT_EQ(ring->counters().enters, 0u);
    PrepareNop(*ring, id, 3);
    EXPECT_EQ(ring->counters().enters, 0u);
    PrepareDiskNop(*ring, id, 4);  // 1, 2 and 3 go first
    EXPECT_EQ(ring->counters().enters, 1u);
    EXPECT_EQ(ring->counters().sqes, 3u);
    PrepareDiskNop(*ring, id, 5);  // then 4
    EXPECT_EQ(ring->counters().enters, 2u);
    EXPECT_EQ(ring->counters().sqes, 4u);
    PrepareNop(*ring, id, 6);
    EXPECT_EQ(ring->counters().enters, 2u);
  });
  client.done.get_future().wait();
  thread_->run_sync([&] {
    EXPECT_EQ(client.seen, (std::vector<std::pair<uint32_t, int32_t>>{
                               {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}}));
    EXPECT_EQ(ring->counters().enters, 3u);  // 5 and 6 with the sleep
    EXPECT_EQ(ring->counters().sqes, 6u);
  });
  // A new round: the disk entry went with the last sleep, so the first one waits again.
  RecordingClient next(2);
  thread_->run_sync([&] {
    const uint32_t id = ring->attach(&next);
    PrepareNop(*ring, id, 7);
    PrepareDiskNop(*ring, id, 8);
    EXPECT_EQ(ring->counters().enters, 3u);
  });
  next.done.get_future().wait();
  thread_->run_sync([&] {
    EXPECT_EQ(ring->counters().enters, 4u);
    ring->detach(0);
    ring->detach(1);
  });
  Drop(ring);
}

// TIERCACHE_SUBMIT_PER_ROUND=1 (read when a ring is created) turns submit_each() off.
TEST_F(LoopRingTest, SubmitPerRoundInTheEnvironmentTurnsSubmitEachOff) {
  setenv("TIERCACHE_SUBMIT_PER_ROUND", "1", 1);
  auto ring = RingOf(*thread_);
  unsetenv("TIERCACHE_SUBMIT_PER_ROUND");
  ASSERT_TRUE(ring);
  RecordingClient client(2);
  thread_->run_sync([&] {
    EXPECT_FALSE(ring->submit_each());
    const uint32_t id = ring->attach(&client);
    PrepareDiskNop(*ring, id, 1);
    PrepareDiskNop(*ring, id, 2);
    EXPECT_EQ(ring->counters().enters, 0u);
  });
  client.done.get_future().wait();
  thread_->run_sync([&] {
    EXPECT_EQ(ring->counters().enters, 1u);
    EXPECT_EQ(ring->counters().sqes, 2u);
    ring->detach(0);
  });
  Drop(ring);
}

// On an EpollEventLoop the ring does the loop's sleeping: everything that used to wake
// epoll_wait (posts from other threads, timers, watched fds) still wakes the loop, and so do the
// ring's own completions.
TEST_F(LoopRingTest, TheRingSleepsForTheLoopAndEveryEventStillWakesIt) {
  auto ring = RingOf(*thread_);
  ASSERT_TRUE(ring);
  bool waits_for_loop = false;
  thread_->run_sync([&] { waits_for_loop = ring->waits_for_loop(); });
  EXPECT_TRUE(waits_for_loop);
  const uint64_t waits_before = ring->counters().waits;

  std::promise<void> posted, timer, fd_event;
  thread_->loop().post([&] { posted.set_value(); });  // from this thread: the wake eventfd
  posted.get_future().wait();
  thread_->loop().schedule_after(std::chrono::milliseconds(2), [&] { timer.set_value(); });
  timer.get_future().wait();
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC), 0);
  thread_->run_sync([&] {
    ASSERT_TRUE(thread_->loop()
                    .watch_fd(pipe_fds[0], EPOLLIN,
                              [&](uint32_t) {
                                char c;
                                EXPECT_EQ(read(pipe_fds[0], &c, 1), 1);
                                fd_event.set_value();
                              })
                    .ok());
  });
  ASSERT_EQ(write(pipe_fds[1], "x", 1), 1);
  fd_event.get_future().wait();
  RecordingClient client(1);
  thread_->run_sync([&] {
    thread_->loop().unwatch_fd(pipe_fds[0]);
    PrepareNop(*ring, ring->attach(&client), 5);
  });
  client.done.get_future().wait();
  EXPECT_EQ(client.seen, (std::vector<std::pair<uint32_t, int32_t>>{{5, 0}}));
  EXPECT_GE(ring->counters().waits, waits_before + 3);  // it slept between the events
  thread_->run_sync([&] { ring->detach(0); });
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  Drop(ring);
}

// A retired client's operation still in the kernel completes into nothing: the id is not
// handed out again, so the client attached after it sees only its own completions.
TEST_F(LoopRingTest, RetiredIdDropsLateCompletionsAndIsNeverReused) {
  auto ring = RingOf(*thread_);
  ASSERT_TRUE(ring);
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC), 0);
  auto gone = std::make_unique<RecordingClient>(1);
  uint32_t gone_id = 0, next_id = 0;
  RecordingClient next(2);
  thread_->run_sync([&] {
    gone_id = ring->attach(gone.get());
    io_uring_sqe* sqe = ring->get_sqe();
    io_uring_prep_poll_add(sqe, pipe_fds[0], POLLIN);  // stays in the kernel until a write
    LoopRing::label(sqe, gone_id, 1);
  });
  thread_->run_sync([&] {
    ring->retire(gone_id);
    gone.reset();
    next_id = ring->attach(&next);
  });
  EXPECT_NE(next_id, gone_id);
  ASSERT_EQ(write(pipe_fds[1], "x", 1), 1);  // the retired poll completes now
  thread_->run_sync([&] {
    io_uring_sqe* sqe = ring->get_sqe();
    io_uring_prep_poll_add(sqe, pipe_fds[0], POLLIN);
    LoopRing::label(sqe, next_id, 2);
  });
  thread_->run_sync([&] { PrepareNop(*ring, next_id, 3); });
  next.done.get_future().wait();
  thread_->run_sync([&] {
    EXPECT_EQ(next.seen, (std::vector<std::pair<uint32_t, int32_t>>{{2, POLLIN}, {3, 0}}));
    ring->detach(next_id);
  });
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  Drop(ring);
}

TEST_F(LoopRingTest, FileTableHandsOutAndReusesSlots) {
  auto ring = RingOf(*thread_);
  ASSERT_TRUE(ring);
  int a = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int b = open("/dev/zero", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  thread_->run_sync([&] {
    EXPECT_EQ(ring->register_file(a), 0);
    EXPECT_EQ(ring->register_file(b), 1);
    ring->unregister_file(0);
    EXPECT_EQ(ring->register_file(b), 0);
    ring->unregister_file(0);
    ring->unregister_file(1);
  });
  close(a);
  close(b);
  Drop(ring);
}

TEST_F(LoopRingTest, BufferTableFindsOnlyRangesInsideARegisteredRegion) {
  auto ring = RingOf(*thread_);
  ASSERT_TRUE(ring);
  constexpr size_t kRegion = 64 * 1024;
  auto* mem = static_cast<std::byte*>(std::aligned_alloc(4096, 3 * kRegion));
  std::byte* a = mem;
  std::byte* b = mem + 2 * kRegion;  // a gap of one region between them
  thread_->run_sync([&] {
    ASSERT_EQ(ring->buffer_slots(), 64u);
    EXPECT_EQ(ring->register_buffer(b, kRegion), 0);
    EXPECT_EQ(ring->register_buffer(a, kRegion), 1);
    EXPECT_EQ(ring->register_buffer(a + 4096, 4096), -1);        // inside a: overlaps
    EXPECT_EQ(ring->register_buffer(b - 4096, 8192), -1);        // straddles b's start
    EXPECT_EQ(ring->find_buffer(a, kRegion), 1);                 // all of a
    EXPECT_EQ(ring->find_buffer(a + kRegion - 512, 512), 1);     // its last bytes
    EXPECT_EQ(ring->find_buffer(a + kRegion - 512, 513), -1);    // one byte past its end
    EXPECT_EQ(ring->find_buffer(a + kRegion, 4096), -1);         // the gap
    EXPECT_EQ(ring->find_buffer(b + 100, 4096), 0);
    EXPECT_EQ(ring->find_buffer(a - 1, 2), -1);                  // starts before a
    ring->unregister_buffer(0);
    EXPECT_EQ(ring->find_buffer(b + 100, 4096), -1);
    EXPECT_EQ(ring->find_buffer(a, 4096), 1);
    EXPECT_EQ(ring->register_buffer(a + kRegion, kRegion), 0);  // the freed slot, the gap
    EXPECT_EQ(ring->find_buffer(a + kRegion, 4096), 0);
    ring->unregister_buffer(0);
    ring->unregister_buffer(1);
    EXPECT_EQ(ring->find_buffer(a, 4096), -1);
  });
  Drop(ring);
  std::free(mem);
}

// TIERCACHE_NO_FIXED_BUFFERS=1 (read when a ring is created): no buffer table, nothing registers,
// and the ring works as before.
TEST_F(LoopRingTest, NoBufferTableWhenDisabled) {
  setenv("TIERCACHE_NO_FIXED_BUFFERS", "1", 1);
  auto ring = RingOf(*thread_);
  unsetenv("TIERCACHE_NO_FIXED_BUFFERS");
  ASSERT_TRUE(ring);
  auto* mem = static_cast<std::byte*>(std::aligned_alloc(4096, 4096));
  RecordingClient client(1);
  thread_->run_sync([&] {
    EXPECT_EQ(ring->buffer_slots(), 0u);
    EXPECT_EQ(ring->register_buffer(mem, 4096), -1);
    EXPECT_EQ(ring->find_buffer(mem, 4096), -1);
    PrepareNop(*ring, ring->attach(&client), 3);
  });
  client.done.get_future().wait();
  EXPECT_EQ(client.seen, (std::vector<std::pair<uint32_t, int32_t>>{{3, 0}}));
  thread_->run_sync([&] { ring->detach(0); });
  Drop(ring);
  std::free(mem);
}

// Existing() never creates a ring; Generation() moves when one is created.
TEST_F(LoopRingTest, ExistingFindsTheLoopsRingWithoutCreatingOne) {
  EXPECT_EQ(LoopRing::Existing(thread_->loop()), nullptr);
  const uint64_t before = LoopRing::Generation();
  auto ring = RingOf(*thread_);
  ASSERT_TRUE(ring);
  EXPECT_EQ(LoopRing::Generation(), before + 1);
  EXPECT_EQ(LoopRing::Existing(thread_->loop()), ring);
  auto again = RingOf(*thread_);  // the same ring: no new generation
  EXPECT_EQ(LoopRing::Generation(), before + 1);
  Drop(again);
  Drop(ring);
  EXPECT_EQ(LoopRing::Existing(thread_->loop()), nullptr);
}

TEST(LoopRingSimTest, LoopWithoutFdsIsNotSupported) {
  SimEventLoop loop;
  EventLoop::ScopedCurrent scope(&loop);
  auto ring = LoopRing::ForLoop(loop);
  ASSERT_FALSE(ring.ok());
  EXPECT_EQ(ring.status().code(), Status::Code::kNotSupported);
}

}  // namespace
}  // namespace tiercache
