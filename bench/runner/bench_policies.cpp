#include "bench/runner/bench_policies.h"

#include <charconv>
#include <chrono>

namespace tiercache::bench {
namespace {

// The shortest text that reads back as `v` (tiercached parses it to the same double).
std::string Number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

double Seconds(Nanos t) { return std::chrono::duration<double>(t).count(); }

}  // namespace

bool BenchPolicies::any() const {
  return !admission.empty() || !replacement.empty() || seq_cutoff_bytes || !cleaning.empty() ||
         cleaning_options;
}

void BenchPolicies::apply_to(CacheOptions* options) const {
  if (!admission.empty()) options->policies.admission = admission;
  if (!replacement.empty()) options->policies.replacement = replacement;
  if (seq_cutoff_bytes) {
    SequentialOptions& seq = options->policies.sequential.emplace();
    seq.enabled = *seq_cutoff_bytes > 0;
    seq.read_cutoff_bytes = *seq_cutoff_bytes;
    seq.write_cutoff_bytes = *seq_cutoff_bytes;
  }
  if (!cleaning.empty()) options->cleaning = cleaning;
  if (cleaning_options) options->cleaning_options = *cleaning_options;
}

Status BenchPolicies::validate() const {
  CacheOptions options;
  apply_to(&options);
  return options.policies.apply(PolicyOptions{}).validate();
}

std::vector<std::string> BenchPolicies::daemon_args() const {
  std::vector<std::string> args;
  auto add = [&args](const char* flag, std::string value) {
    args.push_back(flag);
    args.push_back(std::move(value));
  };
  if (!admission.empty()) add("--admission", admission);
  if (!replacement.empty()) add("--replacement", replacement);
  if (seq_cutoff_bytes) add("--seq-cutoff", std::to_string(*seq_cutoff_bytes));
  if (!cleaning.empty()) add("--cleaning", cleaning);
  if (cleaning_options) {
    // tiercached derives the age margin from --max-dirty-age as CleaningOptionsFor did here.
    add("--dirty-target", Number(cleaning_options->dirty_target));
    add("--dirty-high", Number(cleaning_options->dirty_high));
    add("--max-dirty-age", Number(Seconds(cleaning_options->max_dirty_age)));
    add("--busy-share", Number(cleaning_options->busy_share));
    add("--idle-after", Number(Seconds(cleaning_options->idle_after)));
  }
  return args;
}

std::string BenchPolicies::summary() const {
  auto name = [](const std::string& s) { return s.empty() ? std::string("default") : s; };
  return "admission " + name(admission) + ", replacement " + name(replacement) + ", seq cutoff " +
         (seq_cutoff_bytes ? std::to_string(*seq_cutoff_bytes) + " B" : "default") +
         ", cleaning " + name(cleaning) +
         (cleaning_options ? " (" + cleaning_options->describe() + ")" : "");
}

}  // namespace tiercache::bench
