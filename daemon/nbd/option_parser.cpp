#include "daemon/nbd/option_parser.h"

#include "daemon/nbd/nbd_constants.h"
#include "daemon/nbd/wire.h"

namespace tiercache::nbd {
namespace {

template <typename T>
Parsed<T> Fail(OptionVerdict verdict, std::string error) {
  Parsed<T> p;
  p.verdict = verdict;
  p.error = std::move(error);
  return p;
}

// Reads a 32-bit length then that many bytes of string. Sets `verdict` on failure.
bool ReadString(WireReader& r, std::string_view what, std::string_view& out, OptionVerdict& verdict,
                std::string& error) {
  uint32_t len;
  if (!r.Be32(len)) {
    verdict = OptionVerdict::kInvalid;
    error = std::string(what) + " length missing";
    return false;
  }
  if (len > kMaxStringLength) {
    verdict = OptionVerdict::kDisconnect;
    error = std::string(what) + " longer than 4096 bytes";
    return false;
  }
  if (!r.String(len, out)) {
    verdict = OptionVerdict::kInvalid;
    error = std::string(what) + " runs past the option data";
    return false;
  }
  if (out.find('\0') != std::string_view::npos) {
    verdict = OptionVerdict::kInvalid;
    error = std::string(what) + " contains a NUL byte";
    return false;
  }
  return true;
}

}  // namespace

Parsed<InfoRequest> ParseInfoRequest(std::span<const std::byte> data) {
  WireReader r(data);
  Parsed<InfoRequest> p;
  if (!ReadString(r, "export name", p.value.name, p.verdict, p.error)) return p;
  uint16_t count;
  if (!r.Be16(count)) return Fail<InfoRequest>(OptionVerdict::kInvalid, "info count missing");
  if (r.remaining() != size_t(count) * 2) {
    return Fail<InfoRequest>(OptionVerdict::kInvalid,
                             "info request count does not match the option length");
  }
  p.value.info_types.resize(count);
  for (uint16_t& type : p.value.info_types) (void)r.Be16(type);
  return p;
}

Parsed<MetaContextRequest> ParseMetaContextRequest(std::span<const std::byte> data) {
  WireReader r(data);
  Parsed<MetaContextRequest> p;
  if (!ReadString(r, "export name", p.value.name, p.verdict, p.error)) return p;
  uint32_t count;
  if (!r.Be32(count)) {
    return Fail<MetaContextRequest>(OptionVerdict::kInvalid, "query count missing");
  }
  // Each query takes at least its 4-byte length: bound the count before reserving.
  if (count > r.remaining() / 4) {
    return Fail<MetaContextRequest>(OptionVerdict::kInvalid,
                                    "query count does not fit the option length");
  }
  p.value.queries.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view query;
    if (!ReadString(r, "query", query, p.verdict, p.error)) return p;
    p.value.queries.push_back(query);
  }
  if (r.remaining() != 0) {
    return Fail<MetaContextRequest>(OptionVerdict::kInvalid, "trailing bytes after the queries");
  }
  return p;
}

Parsed<std::string_view> ParseExportName(std::span<const std::byte> data) {
  if (data.size() > kMaxStringLength) {
    return Fail<std::string_view>(OptionVerdict::kDisconnect, "export name longer than 4096 bytes");
  }
  Parsed<std::string_view> p;
  p.value = std::string_view(reinterpret_cast<const char*>(data.data()), data.size());
  if (p.value.find('\0') != std::string_view::npos) {
    return Fail<std::string_view>(OptionVerdict::kDisconnect, "export name contains a NUL byte");
  }
  return p;
}

}  // namespace tiercache::nbd
