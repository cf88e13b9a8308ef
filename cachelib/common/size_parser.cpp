#include "cachelib/common/size_parser.h"

#include <array>
#include <cctype>
#include <cstdio>

namespace tiercache {
namespace {

Status SizeError(std::string_view text, std::string_view why) {
  return Status::InvalidArgument("invalid size '" + std::string(text) + "': " + std::string(why));
}

// The shift of a suffix ("" = 0, "K" = 10, ...), or -1.
int SuffixShift(std::string_view suffix) {
  if (suffix.empty()) return 0;
  std::string s;
  for (char c : suffix) s += char(std::toupper(static_cast<unsigned char>(c)));
  if (s.size() == 3 && s.substr(1) == "IB") s.resize(1);
  if (s.size() == 2 && s[1] == 'B') s.resize(1);
  if (s == "B") return 0;
  if (s.size() != 1) return -1;
  switch (s[0]) {
    case 'K': return 10;
    case 'M': return 20;
    case 'G': return 30;
    case 'T': return 40;
    default: return -1;
  }
}

}  // namespace

Result<uint64_t> ParseSize(std::string_view text) {
  if (text.empty()) return SizeError(text, "empty");
  size_t digits = 0;
  uint64_t value = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    uint64_t d = uint64_t(text[digits] - '0');
    if (value > (UINT64_MAX - d) / 10) return SizeError(text, "too large");
    value = value * 10 + d;
    ++digits;
  }
  if (digits == 0) return SizeError(text, "expected a number such as 65536, 64K or 1M");
  int shift = SuffixShift(text.substr(digits));
  if (shift < 0) {
    return SizeError(text, "unknown suffix '" + std::string(text.substr(digits)) +
                               "' (use K, M, G or T; powers of 1024)");
  }
  if (shift > 0 && value > (UINT64_MAX >> shift)) return SizeError(text, "too large");
  return value << shift;
}

std::string FormatSize(uint64_t bytes) {
  static constexpr std::array<const char*, 5> kUnits = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (unit + 1 < kUnits.size() && bytes >= (uint64_t{1} << (10 * (unit + 1)))) ++unit;
  uint64_t scale = uint64_t{1} << (10 * unit);
  char buf[64];
  if (bytes % scale == 0) {
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(bytes / scale),
                  kUnits[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", double(bytes) / double(scale), kUnits[unit]);
  }
  return buf;
}

}  // namespace tiercache
