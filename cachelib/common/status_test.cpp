#include "cachelib/common/status.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace tiercache {
namespace {

TEST(StatusTest, CodesMessagesAndErrno) {
  EXPECT_TRUE(Status::Ok().ok());
  EXPECT_EQ(Status::Ok().ToString(), "OK");
  Status s = Status::NoSpace("dev: past end");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.to_errno(), ENOSPC);
  EXPECT_EQ(s.ToString(), "NoSpace: dev: past end");
  EXPECT_EQ(Status::FromErrno(EINVAL, "open x").code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Status::FromErrno(EIO, "read x").ToString(), "IoError: read x: Input/output error");
}

TEST(StatusTest, WithMessageKeepsTheCode) {
  const Status s = Status::NotFound("core x does not exist").with_message("core x is gone; why");
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_EQ(s.ToString(), "NotFound: core x is gone; why");
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> good(7);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  Result<int> bad(Status::Corruption("bad magic"));
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kCorruption);
}

}  // namespace
}  // namespace tiercache
