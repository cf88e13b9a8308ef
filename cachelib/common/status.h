// Status: the outcome of an operation, OK or an error code plus a message.
// Result<T>: a value or a non-OK Status. Both are cheap value types; thread-compatible.
#pragma once

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tiercache {

class [[nodiscard]] Status {
 public:
  enum class Code : unsigned char {
    kOk = 0,
    kIoError,          // a device returned an error (EIO and friends)
    kCorruption,       // on-disk data failed a check (magic, checksum, bounds)
    kNotFound,
    kInvalidArgument,  // caller error: range, alignment, flags, options
    kNotSupported,
    kNoSpace,          // past the end of a device, or out of space
    kBusy,             // resource locked or in use
  };

  Status() = default;
  Status(const Status& other)
      : code_(other.code_),
        message_(other.message_ ? std::make_unique<std::string>(*other.message_) : nullptr) {}
  Status(Status&&) noexcept = default;
  Status& operator=(const Status& other) {
    if (this != &other) *this = Status(other);
    return *this;
  }
  Status& operator=(Status&&) noexcept = default;
  static Status Ok() { return Status(); }
  static Status IoError(std::string_view msg) { return Status(Code::kIoError, msg); }
  static Status Corruption(std::string_view msg) { return Status(Code::kCorruption, msg); }
  static Status NotFound(std::string_view msg) { return Status(Code::kNotFound, msg); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status NotSupported(std::string_view msg) { return Status(Code::kNotSupported, msg); }
  static Status NoSpace(std::string_view msg) { return Status(Code::kNoSpace, msg); }
  static Status Busy(std::string_view msg) { return Status(Code::kBusy, msg); }
  // An error built from an errno value, e.g. FromErrno(errno, "open /dev/sdb").
  static Status FromErrno(int err, std::string_view context);

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_ ? *message_ : NoMessage(); }
  // Negative-free errno equivalent (EIO, EINVAL, ENOSPC, ...); 0 when OK.
  int to_errno() const;
  // "IoError: read /x failed: ..." or "OK".
  std::string ToString() const;
  static std::string_view CodeName(Code code);
  // The same code with another message (a caller adding what it knows to an error).
  Status with_message(std::string_view msg) const { return Status(code_, msg); }

  bool operator==(const Status& other) const { return code_ == other.code_; }

 private:
  Status(Code code, std::string_view msg)
      : code_(code), message_(std::make_unique<std::string>(msg)) {}
  static const std::string& NoMessage() {
    static const std::string empty;
    return empty;
  }
  Code code_ = Code::kOk;
  // Null when OK: an OK status, passed along with every completion of the I/O paths, copies
  // and moves as two words (a std::string here cost ~300 instructions per cache hit).
  std::unique_ptr<std::string> message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok() && "Result from an OK status needs a value");
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace tiercache

// Returns the status from the enclosing function if it is not OK.
#define TC_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::tiercache::Status tc_status_ = (expr);     \
    if (!tc_status_.ok()) return tc_status_;     \
  } while (0)
