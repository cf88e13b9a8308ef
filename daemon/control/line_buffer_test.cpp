#include "daemon/control/line_buffer.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

TEST(LineBufferTest, SplitsLinesAcrossAppends) {
  LineBuffer buf(100);
  std::string line;
  buf.append("{\"cmd\":");
  EXPECT_EQ(buf.next(&line), LineBuffer::Next::kNeedMore);
  buf.append("\"status\"}\n{\"cmd\":\"stats\"}\r\npartial");
  ASSERT_EQ(buf.next(&line), LineBuffer::Next::kLine);
  EXPECT_EQ(line, "{\"cmd\":\"status\"}");
  ASSERT_EQ(buf.next(&line), LineBuffer::Next::kLine);
  EXPECT_EQ(line, "{\"cmd\":\"stats\"}");  // the '\r' of CRLF is dropped
  EXPECT_EQ(buf.next(&line), LineBuffer::Next::kNeedMore);
  EXPECT_EQ(buf.buffered(), 7u);
  EXPECT_EQ(buf.take_rest(), "partial");
  EXPECT_EQ(buf.buffered(), 0u);
}

TEST(LineBufferTest, EmptyLinesAreLines) {
  LineBuffer buf(10);
  std::string line = "x";
  buf.append("\n\n");
  ASSERT_EQ(buf.next(&line), LineBuffer::Next::kLine);
  EXPECT_EQ(line, "");
  ASSERT_EQ(buf.next(&line), LineBuffer::Next::kLine);
  EXPECT_EQ(buf.next(&line), LineBuffer::Next::kNeedMore);
}

TEST(LineBufferTest, LineOfExactlyTheLimitIsAccepted) {
  LineBuffer buf(8);
  std::string line;
  buf.append("12345678");
  EXPECT_EQ(buf.next(&line), LineBuffer::Next::kNeedMore);
  buf.append("\n");
  ASSERT_EQ(buf.next(&line), LineBuffer::Next::kLine);
  EXPECT_EQ(line, "12345678");
}

TEST(LineBufferTest, UnterminatedLineOverTheLimitIsTooLong) {
  LineBuffer buf(8);
  std::string line;
  buf.append("123456789");
  EXPECT_EQ(buf.next(&line), LineBuffer::Next::kTooLong);
}

TEST(LineBufferTest, TerminatedLineOverTheLimitIsTooLong) {
  LineBuffer buf(8);
  std::string line;
  buf.append("ok\n123456789\nnext\n");
  ASSERT_EQ(buf.next(&line), LineBuffer::Next::kLine);
  EXPECT_EQ(line, "ok");
  EXPECT_EQ(buf.next(&line), LineBuffer::Next::kTooLong);
}

TEST(LineBufferTest, LimitCountsOnlyTheCurrentLine) {
  LineBuffer buf(4);
  std::string line;
  for (int i = 0; i < 100; ++i) {
    buf.append("abc\n");
    ASSERT_EQ(buf.next(&line), LineBuffer::Next::kLine) << i;
    EXPECT_EQ(line, "abc");
  }
  EXPECT_EQ(buf.buffered(), 0u);
}

}  // namespace
}  // namespace tiercache
