#include "tests/support/sector_model.h"

#include <algorithm>
#include <cstring>

#include "tests/support/sync_io.h"

namespace tiercache::testing {

bool SectorHolds(uint64_t value, uint64_t offset, std::span<const std::byte> got) {
  if (value == 0) {
    static const std::vector<std::byte> kZeros(SectorModel::kSector);
    return got.size() <= kZeros.size() && std::memcmp(got.data(), kZeros.data(), got.size()) == 0;
  }
  // The first word tells most values apart: a full pattern only for the likely match.
  auto head = Pattern(value, offset, 8);
  if (std::memcmp(head.data(), got.data(), 8) != 0) return false;
  auto want = Pattern(value, offset, got.size());
  return std::memcmp(want.data(), got.data(), got.size()) == 0;
}

SectorModel::SectorModel(uint64_t bytes)
    : after_crash_(bytes / kSector, std::vector<Entry>{Entry{0, 0, false}}),
      now_(bytes / kSector, std::vector<uint64_t>{0}),
      acked_(bytes / kSector, 0),
      durable_(bytes / kSector, 0),
      history_(bytes / kSector) {}

uint64_t SectorModel::submit_write(uint64_t offset, uint64_t length, uint64_t value) {
  const uint64_t seq = next_seq_++;
  for (uint64_t s = offset / kSector; s < (offset + length) / kSector; ++s) {
    after_crash_[s].push_back(Entry{seq, value, false});
    now_[s] = {value};
    history_[s].emplace_back(seq, value);
  }
  return seq;
}

uint64_t SectorModel::submit_trim(uint64_t offset, uint64_t length) {
  const uint64_t seq = next_seq_++;
  for (uint64_t s = offset / kSector; s < (offset + length) / kSector; ++s) {
    // Everything possible before stays possible until a later write is durable: re-tag it.
    for (Entry& e : after_crash_[s]) e = Entry{seq, e.value, true};
    after_crash_[s].push_back(Entry{seq, 0, true});
    if (std::find(now_[s].begin(), now_[s].end(), 0) == now_[s].end()) now_[s].push_back(0);
    history_[s].emplace_back(seq, 0);
  }
  return seq;
}

void SectorModel::acked(uint64_t seq, uint64_t offset, uint64_t length, bool durable) {
  for (uint64_t s = offset / kSector; s < (offset + length) / kSector; ++s) {
    acked_[s] = std::max(acked_[s], seq);
    if (durable) make_durable(s, seq);
  }
}

void SectorModel::flushed(const Covered& covered) {
  for (uint64_t s = 0; s < covered.size(); ++s) make_durable(s, covered[s]);
}

void SectorModel::make_durable(uint64_t sector, uint64_t seq) {
  if (seq <= durable_[sector]) return;
  durable_[sector] = seq;
  // Requests on one sector run in submission order: those before `seq` are overwritten.
  std::erase_if(after_crash_[sector], [seq](const Entry& e) { return e.seq < seq; });
}

SectorModel::Expected SectorModel::expect_read(uint64_t offset, uint64_t length) const {
  return Expected(now_.begin() + offset / kSector, now_.begin() + (offset + length) / kSector);
}

std::string SectorModel::check_read(uint64_t offset, std::span<const std::byte> got,
                                    const Expected& expect) const {
  for (uint64_t i = 0; i < expect.size(); ++i) {
    auto sector = got.subspan(i * kSector, kSector);
    const uint64_t at = offset + i * kSector;
    bool ok = std::any_of(expect[i].begin(), expect[i].end(),
                          [&](uint64_t v) { return SectorHolds(v, at, sector); });
    if (!ok) return "read: " + describe(at / kSector, sector);
  }
  return "";
}

std::string SectorModel::check_after_crash(uint64_t offset, std::span<const std::byte> got) const {
  for (uint64_t i = 0; i * kSector < got.size(); ++i) {
    auto sector = got.subspan(i * kSector, kSector);
    const uint64_t at = offset + i * kSector;
    const auto& allowed = after_crash_[at / kSector];
    bool ok = std::any_of(allowed.begin(), allowed.end(),
                          [&](const Entry& e) { return SectorHolds(e.value, at, sector); });
    if (!ok) return "after the crash: " + describe(at / kSector, sector);
  }
  return "";
}

bool SectorModel::maybe_trimmed(uint64_t sector) const {
  const auto& a = after_crash_[sector];
  return std::any_of(a.begin(), a.end(), [](const Entry& e) { return e.trim; });
}

void SectorModel::settle(std::span<const std::byte> got) {
  const uint64_t seq = next_seq_++;
  for (uint64_t s = 0; s < after_crash_.size(); ++s) {
    auto sector = got.subspan(s * kSector, kSector);
    std::vector<Entry>& entries = after_crash_[s];
    if (maybe_trimmed(s)) {
      for (Entry& e : entries) e.seq = seq;
      now_[s].clear();
      for (const Entry& e : entries) now_[s].push_back(e.value);
    } else {
      auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) {
        return SectorHolds(e.value, s * kSector, sector);
      });
      const uint64_t value = it == entries.end() ? 0 : it->value;
      entries = {Entry{seq, value, false}};
      now_[s] = {value};
    }
    acked_[s] = durable_[s] = seq;
  }
}

std::string SectorModel::describe(uint64_t sector, std::span<const std::byte> got) const {
  std::string out = "sector " + std::to_string(sector) + " (byte " +
                    std::to_string(sector * kSector) + ") holds ";
  std::string found = "data no request wrote";
  if (SectorHolds(0, sector * kSector, got)) found = "zeros";
  for (auto [seq, value] : history_[sector]) {
    if (value != 0 && SectorHolds(value, sector * kSector, got)) {
      found = "the data of request #" + std::to_string(seq);
    }
  }
  out += found + "; acceptable: {";
  for (const Entry& e : after_crash_[sector]) {
    out += " #" + std::to_string(e.seq) + (e.value == 0 ? "=zeros" : "") + (e.trim ? "(trim)" : "");
  }
  out += " } now: {";
  for (uint64_t v : now_[sector]) out += " " + std::to_string(v);
  out += " }; newest acknowledged #" + std::to_string(acked_[sector]) + ", newest durable #" +
         std::to_string(durable_[sector]) + "; writes to it:";
  for (auto [seq, value] : history_[sector]) {
    out += " #" + std::to_string(seq) + (value == 0 ? "=zeros" : "");
  }
  return out;
}

}  // namespace tiercache::testing
