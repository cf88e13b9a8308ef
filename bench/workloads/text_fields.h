// Small parsing helpers shared by the trace importers: splitting lines and fields and strict
// number parsing (the whole field must be a number). Pure functions; thread-safe.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tiercache::bench {

inline std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    pos = nl + 1;
  }
  return out;
}

// Splits on runs of spaces and tabs.
inline std::vector<std::string_view> SplitWords(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

inline std::vector<std::string_view> SplitChar(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  for (;;) {
    size_t k = line.find(sep, pos);
    out.push_back(line.substr(pos, k == std::string_view::npos ? std::string_view::npos : k - pos));
    if (k == std::string_view::npos) return out;
    pos = k + 1;
  }
}

inline std::optional<uint64_t> ParseU64(std::string_view s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// "12.000180930" (seconds with up to 9 decimals) -> nanoseconds, without floating point.
inline std::optional<int64_t> ParseSecondsNs(std::string_view s) {
  const size_t dot = s.find('.');
  auto whole = ParseU64(s.substr(0, dot));
  if (!whole) return std::nullopt;
  int64_t ns = static_cast<int64_t>(*whole) * 1000000000;
  if (dot == std::string_view::npos) return ns;
  std::string_view frac = s.substr(dot + 1);
  if (frac.empty() || frac.size() > 9) return std::nullopt;
  auto f = ParseU64(frac);
  if (!f) return std::nullopt;
  int64_t scale = 1;
  for (size_t k = frac.size(); k < 9; ++k) scale *= 10;
  return ns + static_cast<int64_t>(*f) * scale;
}

}  // namespace tiercache::bench
