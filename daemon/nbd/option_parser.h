// Parsers for the payloads of NBD handshake options (NBD_OPT_INFO/GO, the meta-context
// options, NBD_OPT_EXPORT_NAME). Pure functions over bytes: they validate lengths and string
// limits and never read past the option data. Results hold views into the input span.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tiercache::nbd {

// How a malformed option is answered.
enum class OptionVerdict {
  kOk,
  kInvalid,     // reply NBD_REP_ERR_INVALID and keep negotiating
  kDisconnect,  // a protocol MUST was broken (e.g. a string over 4096 bytes): hard disconnect
};

template <typename T>
struct Parsed {
  OptionVerdict verdict = OptionVerdict::kOk;
  std::string error;  // why, when verdict != kOk
  T value{};
};

// NBD_OPT_INFO / NBD_OPT_GO: name length, name, count, count x 16-bit NBD_INFO_* requests.
struct InfoRequest {
  std::string_view name;
  std::vector<uint16_t> info_types;
};
Parsed<InfoRequest> ParseInfoRequest(std::span<const std::byte> data);

// NBD_OPT_LIST_META_CONTEXT / NBD_OPT_SET_META_CONTEXT: export name, count, queries.
struct MetaContextRequest {
  std::string_view name;
  std::vector<std::string_view> queries;
};
Parsed<MetaContextRequest> ParseMetaContextRequest(std::span<const std::byte> data);

// NBD_OPT_EXPORT_NAME: the whole payload is the name.
Parsed<std::string_view> ParseExportName(std::span<const std::byte> data);

}  // namespace tiercache::nbd
