// AioContext: an IoQueue over one Linux AIO context (io_setup), the fallback where io_uring is
// missing or refused. Each round's operations (merged ones as preadv/pwritev when their buffers
// are apart) go to the kernel in one io_submit; completions are signalled on the IoQueue's
// eventfd (io_set_eventfd) and read with io_getevents.
// Owned by FileDevice; used only on its loop's thread (not thread-safe).
#pragma once

#include <libaio.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "cachelib/device/io_queue.h"

namespace tiercache {

class AioContext final : public IoQueue {
 public:
  // Sets up the kernel context and the eventfd and starts watching it on `loop`.
  // REQUIRES: called on `loop`'s thread. NotSupported on loops without fds (SimEventLoop).
  static Result<std::unique_ptr<AioContext>> Create(EventLoop& loop, uint32_t queue_depth);
  // REQUIRES: as ~IoQueue. Waits for anything still in the kernel.
  ~AioContext() override;

  const char* backend_name() const override { return "libaio"; }

 private:
  AioContext(EventLoop& loop, uint32_t queue_depth, io_context_t ctx, int eventfd);
  void prepare(uint32_t slot) override;
  void submit_prepared() override;
  void reap() override;

  io_context_t ctx_;
  std::deque<iocb> cbs_;      // by slot; a deque keeps the addresses the kernel holds stable
  std::vector<iocb*> batch_;  // prepared, not yet given to the kernel
};

}  // namespace tiercache
