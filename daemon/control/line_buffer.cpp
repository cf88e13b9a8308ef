#include "daemon/control/line_buffer.h"

#include <algorithm>

namespace tiercache {

void LineBuffer::append(std::string_view data) {
  compact();
  data_.append(data);
}

LineBuffer::Next LineBuffer::next(std::string* line) {
  size_t from = std::max(start_, scanned_);
  size_t newline = data_.find('\n', from);
  if (newline == std::string::npos) {
    scanned_ = data_.size();
    return buffered() > max_line_bytes_ ? Next::kTooLong : Next::kNeedMore;
  }
  size_t length = newline - start_;
  if (length > max_line_bytes_) return Next::kTooLong;
  if (length > 0 && data_[newline - 1] == '\r') --length;
  line->assign(data_, start_, length);
  start_ = newline + 1;
  scanned_ = start_;
  return Next::kLine;
}

std::string LineBuffer::take_rest() {
  std::string rest = data_.substr(start_);
  data_.clear();
  start_ = 0;
  scanned_ = 0;
  return rest;
}

void LineBuffer::compact() {
  if (start_ == 0) return;
  data_.erase(0, start_);
  scanned_ -= std::min(scanned_, start_);
  start_ = 0;
}

}  // namespace tiercache
