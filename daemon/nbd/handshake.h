// Handshake: the server side of NBD fixed-newstyle negotiation as a byte-level state machine,
// with no sockets: Feed() consumes whole messages from the input and appends replies to the
// output, one handler per option (a table maps option -> handler). It ends in transmission
// (after NBD_OPT_GO or NBD_OPT_EXPORT_NAME) or in a close (NBD_OPT_ABORT or a protocol error).
// One instance per connection; not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "daemon/nbd/export_info.h"
#include "daemon/nbd/wire.h"

namespace tiercache::nbd {

// What the client and server agreed on, read by the transmission phase.
struct Negotiated {
  bool structured_replies = false;
  bool base_allocation = false;  // base:allocation selected for the export entered
  uint16_t transmission_flags = 0;
};

class Handshake {
 public:
  enum class Outcome {
    kNeedMore,      // feed more bytes
    kTransmission,  // negotiation finished; bytes after `consumed` are transmission requests
    kClose,         // close after sending the output; see close_reason()
  };

  explicit Handshake(const ExportInfo& info) : info_(info) {}

  // The server's opening bytes: NBDMAGIC, IHAVEOPT, handshake flags.
  void Start(Bytes& out);
  // Consumes complete messages from the front of `in`, storing how many bytes it used in
  // `consumed`, and appends replies to `out`. Partial messages are left unconsumed; a message
  // never needs more than kOptionHeaderSize + kMaxOptionLength bytes (larger ones close).
  Outcome Feed(std::span<const std::byte> in, size_t& consumed, Bytes& out);

  const Negotiated& negotiated() const { return negotiated_; }
  const std::string& close_reason() const { return close_reason_; }
  // True when the close was the client's NBD_OPT_ABORT rather than a protocol error.
  bool aborted() const { return aborted_; }
  // "NBD_OPT_GO" etc., for logs.
  static const char* OptionName(uint32_t option);

 private:
  enum class State { kClientFlags, kOptions, kDone };
  enum class Action { kContinue, kNeedMore, kTransmission, kClose };
  using Handler = Action (Handshake::*)(uint32_t option, std::span<const std::byte> data,
                                        Bytes& out);
  struct OptionEntry {
    uint32_t option;
    const char* name;
    Handler handler;
  };
  static const OptionEntry kOptionTable[];

  Action FeedClientFlags(std::span<const std::byte> in, size_t& consumed);
  Action FeedOption(std::span<const std::byte> in, size_t& consumed, Bytes& out);
  Action DispatchOption(uint32_t option, std::span<const std::byte> data, Bytes& out);
  Action Close(std::string reason);

  Action OnExportName(uint32_t option, std::span<const std::byte> data, Bytes& out);
  Action OnAbort(uint32_t option, std::span<const std::byte> data, Bytes& out);
  Action OnList(uint32_t option, std::span<const std::byte> data, Bytes& out);
  Action OnInfoOrGo(uint32_t option, std::span<const std::byte> data, Bytes& out);
  Action OnStructuredReply(uint32_t option, std::span<const std::byte> data, Bytes& out);
  Action OnMetaContext(uint32_t option, std::span<const std::byte> data, Bytes& out);

  void SendInfoReplies(uint32_t option, uint16_t flags, std::span<const uint16_t> requested,
                       Bytes& out) const;

  const ExportInfo& info_;
  State state_ = State::kClientFlags;
  bool no_zeroes_ = false;
  bool aborted_ = false;
  uint32_t options_seen_ = 0;
  Negotiated negotiated_;
  std::string close_reason_;
};

// Appends one option reply: magic, option, reply type, length, payload.
void AppendOptionReply(Bytes& out, uint32_t option, uint32_t type,
                       std::span<const std::byte> payload = {});
// Appends an error option reply whose payload is a human-readable message.
void AppendOptionError(Bytes& out, uint32_t option, uint32_t type, std::string_view message);

}  // namespace tiercache::nbd
