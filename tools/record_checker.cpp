#include "tools/record_checker.h"

#include <unordered_map>

namespace tiercache {
namespace {

void AddProblem(RecordReport* report, std::string problem) {
  ++report->problem_count;
  if (report->problems.size() < kMaxListedProblems) report->problems.push_back(std::move(problem));
}

// Checks one in-use record; `sectors` is the number of sectors of this line inside the core.
void CheckInUse(uint64_t line, const LineRecord& r, uint64_t sectors, RecordReport* report) {
  std::string where = "line " + std::to_string(line) + " (core line " +
                      std::to_string(r.core_line) + ")";
  if ((r.dirty & ~r.valid).any()) {
    AddProblem(report, where + " has dirty sectors that are not valid");
  }
  SectorBits outside = r.valid | r.dirty;
  for (uint64_t s = 0; s < sectors && s < kMaxSectorsPerLine; ++s) outside.reset(s);
  if (outside.any()) {
    AddProblem(report, where + " marks sectors beyond the line or the end of the core");
  }
}

}  // namespace

RecordReport CheckRecords(const MetadataStore& store) {
  const SuperblockInfo& info = store.info();
  const uint64_t line_size = info.line_size;
  const uint64_t core_lines = line_size == 0 ? 0 : (info.core.size + line_size - 1) / line_size;
  RecordReport report;
  std::unordered_map<uint64_t, uint64_t> owner;  // core line -> cache line
  for (uint64_t line = 0; line < store.line_count(); ++line) {
    const LineRecord& r = store.loaded_record(line);
    if (!r.in_use()) {
      if (r.valid.any() || r.dirty.any()) {
        AddProblem(&report, "free line " + std::to_string(line) + " has sector bits set");
      }
      continue;
    }
    ++report.lines_used;
    report.valid_sectors += r.valid.count();
    report.dirty_sectors += r.dirty.count();
    if (r.dirty.any()) ++report.lines_dirty;
    if (r.core_line >= core_lines) {
      AddProblem(&report, "line " + std::to_string(line) + " maps core line " +
                              std::to_string(r.core_line) + ", past the end of the core (" +
                              std::to_string(core_lines) + " lines)");
      continue;
    }
    auto [it, inserted] = owner.emplace(r.core_line, line);
    if (!inserted) {
      AddProblem(&report, "lines " + std::to_string(it->second) + " and " + std::to_string(line) +
                              " both hold core line " + std::to_string(r.core_line));
    }
    uint64_t core_bytes = std::min(line_size, info.core.size - r.core_line * line_size);
    CheckInUse(line, r, (core_bytes + kSectorSize - 1) / kSectorSize, &report);
  }
  return report;
}

}  // namespace tiercache
