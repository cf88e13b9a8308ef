#include "cachelib/common/size_parser.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

uint64_t Parsed(std::string_view text) {
  Result<uint64_t> r = ParseSize(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status().ToString();
  return r.ok() ? *r : ~uint64_t{0};
}

std::string ErrorOf(std::string_view text) {
  Result<uint64_t> r = ParseSize(text);
  return r.ok() ? "OK" : r.status().ToString();
}

TEST(SizeParserTest, PlainAndSuffixed) {
  EXPECT_EQ(Parsed("65536"), 65536u);
  EXPECT_EQ(Parsed("0"), 0u);
  EXPECT_EQ(Parsed("64K"), 65536u);
  EXPECT_EQ(Parsed("64k"), 65536u);
  EXPECT_EQ(Parsed("64KiB"), 65536u);
  EXPECT_EQ(Parsed("64kb"), 65536u);
  EXPECT_EQ(Parsed("1M"), 1048576u);
  EXPECT_EQ(Parsed("3G"), 3ull << 30);
  EXPECT_EQ(Parsed("2T"), 2ull << 40);
  EXPECT_EQ(Parsed("512B"), 512u);
  EXPECT_EQ(Parsed("18446744073709551615"), ~uint64_t{0});
  EXPECT_EQ(Parsed("16777215T"), 16777215ull << 40);
}

TEST(SizeParserTest, ClearErrors) {
  EXPECT_EQ(ErrorOf(""), "InvalidArgument: invalid size '': empty");
  EXPECT_EQ(ErrorOf("K"),
            "InvalidArgument: invalid size 'K': expected a number such as 65536, 64K or 1M");
  EXPECT_EQ(ErrorOf("-4K"),
            "InvalidArgument: invalid size '-4K': expected a number such as 65536, 64K or 1M");
  EXPECT_EQ(ErrorOf("64Q"),
            "InvalidArgument: invalid size '64Q': unknown suffix 'Q' (use K, M, G or T; powers "
            "of 1024)");
  EXPECT_EQ(ErrorOf("1.5M"),
            "InvalidArgument: invalid size '1.5M': unknown suffix '.5M' (use K, M, G or T; "
            "powers of 1024)");
  EXPECT_EQ(ErrorOf("64 K"),
            "InvalidArgument: invalid size '64 K': unknown suffix ' K' (use K, M, G or T; "
            "powers of 1024)");
  EXPECT_EQ(ErrorOf("18446744073709551616"),
            "InvalidArgument: invalid size '18446744073709551616': too large");
  EXPECT_EQ(ErrorOf("16777216T"), "InvalidArgument: invalid size '16777216T': too large");
}

TEST(SizeParserTest, Formatting) {
  EXPECT_EQ(FormatSize(0), "0 B");
  EXPECT_EQ(FormatSize(512), "512 B");
  EXPECT_EQ(FormatSize(1023), "1023 B");
  EXPECT_EQ(FormatSize(65536), "64 KiB");
  EXPECT_EQ(FormatSize(1536 * 1024), "1.5 MiB");
  EXPECT_EQ(FormatSize(1ull << 30), "1 GiB");
  EXPECT_EQ(FormatSize(4ull << 40), "4 TiB");
  EXPECT_EQ(FormatSize(5000ull << 40), "5000 TiB");
}

}  // namespace
}  // namespace tiercache
