// UblkQueueTestPeer: the unit tests' way into UblkQueue's loop-side steps without ublk_drv
// (ublk_queue_test, ublk_alloc_test). Test-only; call on the queue's loop.
#pragma once

#include "daemon/ublk/ublk_queue.h"

namespace tiercache {

class UblkQueueTestPeer {
 public:
  // What start() runs on the loop: the commands, and a FETCH_REQ per tag.
  static Status Begin(UblkQueue& q) { return q.begin(); }
  // The kernel hands `tag` a request (its descriptor already written), whatever became of the
  // tag's last command: on a stand-in char device the commands themselves fail.
  static void Receive(UblkQueue& q, uint32_t tag) {
    if (q.tags_[tag] != UblkQueue::TagState::kInKernel) {
      q.tags_[tag] = UblkQueue::TagState::kInKernel;
      ++q.in_kernel_;
    }
    q.on_command_done(uint16_t(tag), UBLK_IO_RES_OK);
  }
  static const std::byte* Buffer(const UblkQueue& q, uint32_t tag) { return q.buffer(tag); }
};

}  // namespace tiercache
