// RequestExecutor: runs validated Commands against a Device (one handler per command, chosen
// from a table) and hands back each encoded reply. Knows nothing about sockets or caching;
// wire flags were already turned into WriteFlags by the protocol layer. Range commands (TRIM,
// WRITE_ZEROES, CACHE) are bounded: a long one reaches the Device in sequential chunks.
// One per connection, used on that connection's loop thread only.
#pragma once

#include <functional>
#include <memory>

#include "cachelib/device/device.h"
#include "daemon/nbd/handshake.h"
#include "daemon/nbd/io_buffer.h"
#include "daemon/nbd/protocol.h"

namespace tiercache::nbd {

class RequestExecutor {
 public:
  // Receives the complete reply bytes. Runs exactly once per Execute(), on the submitting
  // loop: inline for commands that need no device I/O, later otherwise.
  using ReplyFn = std::function<void(IoBuffer reply)>;

  // TRIM, WRITE_ZEROES and CACHE longer than `range_chunk_bytes` (rounded down to the block
  // size, at least one block) run as sequential chunks of at most that size.
  RequestExecutor(Device& device, const Negotiated& negotiated, uint64_t range_chunk_bytes);

  // Executes `cmd`; `payload` holds the data of a WRITE. REQUIRES: cmd passed CheckRequest,
  // cmd.op != Op::kDisc, and the caller runs on an event loop (Device contract).
  void Execute(const Command& cmd, IoBuffer payload, ReplyFn done);
  // The reply to a request that validation (or execution) failed with `status`.
  IoBuffer ErrorFor(const Command& cmd, const Status& status) const;

 private:
  struct Pending;
  // Pendings live in the loop's SlotPool: one per request, so a request costs no heap allocation.
  struct PendingDelete {
    void operator()(Pending* p) const;
  };
  using PendingPtr = std::unique_ptr<Pending, PendingDelete>;
  using Handler = void (RequestExecutor::*)(PendingPtr);
  static const Handler kHandlers[];

  void Read(PendingPtr p);
  void Write(PendingPtr p);
  void Flush(PendingPtr p);
  void Trim(PendingPtr p);
  void Cache(PendingPtr p);
  void WriteZeroes(PendingPtr p);
  void BlockStatus(PendingPtr p);
  // Submits the next chunk of a range command, or finishes it once every chunk succeeded.
  // The first error ends the command and is its reply.
  void NextChunk(PendingPtr p);
  void FinishRange(PendingPtr p);
  void Unexpected(PendingPtr p);

  // A device callback that replies with the status (success or error) and frees `p`.
  static IoCallback ReplyWithStatus(PendingPtr p);

  Device& device_;
  const bool structured_;
  const uint64_t chunk_bytes_;
};

}  // namespace tiercache::nbd
