#include "tools/policy_flags.h"

#include <CLI/CLI.hpp>

#include "cachelib/common/size_parser.h"
#include "policy/replacement/replacement_factory.h"

namespace tiercache {
namespace {

Status FlagError(const char* flag, const Status& status) {
  return Status::InvalidArgument(std::string(flag) + ": " + status.message());
}

// Sets *bytes from `text` unless it is empty.
Status ParseCutoff(const char* flag, const std::string& text, uint64_t* bytes) {
  if (text.empty()) return Status::Ok();
  Result<uint64_t> size = ParseSize(text);
  if (!size.ok()) return FlagError(flag, size.status());
  *bytes = *size;
  return Status::Ok();
}

// The flag that set the cutoff of one direction: the per-direction one if given.
const char* CutoffFlag(const std::string& direction_flag_value, const char* direction_flag) {
  return direction_flag_value.empty() ? "--seq-cutoff" : direction_flag;
}

// Each name is checked with defaults for everything else, so the message names its flag.
Status CheckNames(const std::string& admission, const std::string& replacement) {
  PolicyOptions alone;
  alone.admission = admission;
  if (Status s = alone.validate(); !s.ok()) return FlagError("--admission", s);
  alone = PolicyOptions{};
  alone.replacement = replacement;
  if (Status s = alone.validate(); !s.ok()) return FlagError("--replacement", s);
  return Status::Ok();
}

}  // namespace

bool PolicyFlags::any_sequential() const {
  return !seq_cutoff.empty() || !seq_read_cutoff.empty() || !seq_write_cutoff.empty();
}

bool PolicyFlags::any() const {
  return !admission.empty() || !replacement.empty() || any_sequential();
}

Status PolicyFlags::check_names() const {
  const PolicyOptions defaults;
  return CheckNames(admission.empty() ? defaults.admission : admission,
                    replacement.empty() ? defaults.replacement : replacement);
}

void PolicyFlags::add_to(CLI::App* app) {
  const PolicyOptions defaults;
  std::string replacements;
  for (std::string_view name : ReplacementPolicyNames()) {
    replacements += (replacements.empty() ? "" : ", ") + std::string(name);
  }
  app->add_option("--admission", admission,
                  "Admission policy: which missed blocks get an SSD slot (default " +
                      defaults.admission + ")");
  app->add_option("--replacement", replacement,
                  "Replacement policy: which cached block is evicted (" + replacements +
                      "; default " + defaults.replacement + ")");
  app->add_option("--seq-cutoff", seq_cutoff,
                  "Sequential bypass: a stream's reads and writes past this many bytes go "
                  "straight to the core (default " +
                      FormatSize(defaults.sequential.read_cutoff_bytes) + "; 0: off)");
  app->add_option("--seq-read-cutoff", seq_read_cutoff, "--seq-cutoff for reads only");
  app->add_option("--seq-write-cutoff", seq_write_cutoff, "--seq-cutoff for writes only");
}

Result<PolicyOptions> PolicyFlags::apply(PolicyOptions p) const {
  if (!admission.empty()) p.admission = admission;
  if (!replacement.empty()) p.replacement = replacement;
  TC_RETURN_IF_ERROR(CheckNames(p.admission, p.replacement));
  SequentialOptions& seq = p.sequential;
  uint64_t read = seq.enabled ? seq.read_cutoff_bytes : 0;
  uint64_t write = seq.enabled ? seq.write_cutoff_bytes : 0;
  TC_RETURN_IF_ERROR(ParseCutoff("--seq-cutoff", seq_cutoff, &read));
  TC_RETURN_IF_ERROR(ParseCutoff("--seq-cutoff", seq_cutoff, &write));
  TC_RETURN_IF_ERROR(ParseCutoff("--seq-read-cutoff", seq_read_cutoff, &read));
  TC_RETURN_IF_ERROR(ParseCutoff("--seq-write-cutoff", seq_write_cutoff, &write));
  const char* read_flag = CutoffFlag(seq_read_cutoff, "--seq-read-cutoff");
  const char* write_flag = CutoffFlag(seq_write_cutoff, "--seq-write-cutoff");
  if ((read == 0) != (write == 0)) {
    // One switch covers both directions (SequentialOptions::enabled).
    return Status::InvalidArgument(
        std::string(read == 0 ? read_flag : write_flag) +
        ": 0 (off) applies to both directions only; use --seq-cutoff 0 to turn sequential "
        "bypass off");
  }
  seq.enabled = read != 0;
  seq.read_cutoff_bytes = read;
  seq.write_cutoff_bytes = write;
  if (seq.enabled) {
    SequentialOptions one_direction = seq;
    one_direction.write_cutoff_bytes = one_direction.read_cutoff_bytes;
    if (Status s = one_direction.validate(); !s.ok()) return FlagError(read_flag, s);
    if (Status s = seq.validate(); !s.ok()) return FlagError(write_flag, s);
  }
  if (Status s = p.validate(); !s.ok()) return Status::InvalidArgument(s.message());
  return p;
}

}  // namespace tiercache
