// LoopWaiter: something that sleeps for an EpollEventLoop better than epoll_wait can: an
// io_uring that also watches the epoll fd, so one system call hands over the round's I/O,
// sleeps until an fd event or an I/O completion, and brings the completions back (LoopRing).
// Called only on the loop's thread.
#pragma once

namespace tiercache {

class LoopWaiter {
 public:
  // Runs the completions that arrived, first sleeping for one (or for `epfd` to become
  // readable) if `block`. Returns false only when it slept and `epfd` did not become readable:
  // then there are no fd events to collect.
  virtual bool wait(int epfd, bool block) = 0;

 protected:
  ~LoopWaiter() = default;
};

}  // namespace tiercache
