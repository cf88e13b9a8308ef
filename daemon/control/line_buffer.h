// LineBuffer: splits a byte stream into '\n'-terminated lines and refuses lines longer than a
// limit, so a peer that never sends a newline cannot make it grow without bound (it holds at most
// one chunk beyond the limit). Value type; not thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tiercache {

class LineBuffer {
 public:
  enum class Next { kLine, kNeedMore, kTooLong };

  // `max_line_bytes`: the longest accepted line, not counting its '\n'. Must be > 0.
  explicit LineBuffer(size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

  void append(std::string_view data);
  // kLine: *line is the next line without its '\n' (and without a trailing '\r').
  // kNeedMore: no complete line yet. kTooLong: the next line exceeds the limit; the buffer is
  // left as is (the caller is expected to give up on the stream).
  Next next(std::string* line);
  // Removes and returns the bytes after the last complete line (an unterminated last line at EOF).
  std::string take_rest();
  size_t buffered() const { return data_.size() - start_; }

 private:
  void compact();

  const size_t max_line_bytes_;
  std::string data_;
  size_t start_ = 0;    // data_[0, start_) was already returned
  size_t scanned_ = 0;  // data_[start_, scanned_) holds no '\n'
};

}  // namespace tiercache
