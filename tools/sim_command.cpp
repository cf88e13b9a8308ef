#include "tools/sim_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <new>
#include <optional>

#include "bench/sim/sim_format.h"
#include "bench/sim/sim_report_html.h"
#include "bench/sim/sim_report_json.h"
#include "bench/sim/sim_report_text.h"
#include "bench/sim/sim_runner.h"
#include "cachelib/common/size_parser.h"
#include "policy/admission/adaptive_tuning.h"
#include "tools/exit_codes.h"

namespace tiercache {
namespace {

// Strings as typed; validated once CLI11 is done.
struct RawSimArgs {
  std::vector<std::string> traces, sizes, admissions, replacements, knobs;
  std::string mode = "wt", seq_cutoff;
  std::optional<uint32_t> shards;
};

void AddOptions(CLI::App& app, RawSimArgs* raw, SimCommandLine* cmd) {
  app.add_option("--trace", raw->traces,
                 "[NAME=]FORMAT:FILE, FORMAT blkparse, fio or msr; repeat for several traces")
      ->required();
  app.add_option("--cache-size", raw->sizes,
                 "Cache sizes (data bytes, lines of 4 KiB), comma-separated: 16M,1G")
      ->required()->delimiter(',');
  app.add_option("--admission", raw->admissions,
                 "Admission policies, comma-separated (default: the engine's default)")
      ->delimiter(',');
  app.add_option("--replacement", raw->replacements,
                 "Replacement policies, comma-separated: lru,clock,s3fifo,sieve,epoch-lru "
                 "(default: the engine's default)")
      ->delimiter(',');
  app.add_option("--mode", raw->mode, "Cache mode (default wt)")
      ->check(CLI::IsMember({"wt", "wb", "wa", "pt"}));
  app.add_option("--shards", raw->shards,
                 "Engine shards; 1 = fully associative (default: the engine's, " +
                     std::to_string(CacheOptions{}.shards) + ")")
      ->check(CLI::Range(1u, 1u << 20));
  app.add_option("--seq-cutoff", raw->seq_cutoff,
                 "Sequential bypass cutoff for reads and writes, e.g. 4M; 0 turns bypass off "
                 "(default: the create-time default, 4M)");
  app.add_option("--set", raw->knobs,
                 "KNOB=VALUE: a knob of the adaptive admission policy for this run (repeat, or "
                 "comma-separate; knobs: docs/policy-admission.md)")
      ->delimiter(',');
  app.add_option("--json", cmd->json_path, "Write the results as JSON to FILE (- for stdout)");
  app.add_option("--report", cmd->report_path, "Write an HTML page with miss-ratio curves");
  app.add_flag("-q,--quiet", cmd->quiet, "No progress lines on stderr");
}

// What CLI11 cannot check; the message names the option.
Status Finish(const RawSimArgs& raw, bench::SimOptions* sim) {
  for (const std::string& t : raw.traces) {
    Result<bench::SimTraceSpec> spec = bench::ParseSimTraceSpec(t);
    if (!spec.ok()) return Status::InvalidArgument("--trace: " + spec.status().message());
    sim->traces.push_back(std::move(spec).value());
  }
  for (const std::string& s : raw.sizes) {
    Result<uint64_t> size = ParseSize(s);
    if (!size.ok()) return Status::InvalidArgument("--cache-size: " + size.status().message());
    sim->cache_bytes.push_back(*size);
  }
  if (!raw.admissions.empty()) sim->admissions = raw.admissions;
  if (!raw.replacements.empty()) sim->replacements = raw.replacements;
  if (!raw.knobs.empty()) {
    AdaptiveAdmission::Params tried;
    if (Status s = ApplyAdaptiveKnobs(raw.knobs, tried); !s.ok()) {
      return Status::InvalidArgument("--set: " + s.message());
    }
    if (std::find(sim->admissions.begin(), sim->admissions.end(), "adaptive") ==
        sim->admissions.end()) {
      return Status::InvalidArgument("--set: knobs of the adaptive policy, which --admission "
                                     "does not run");
    }
    sim->adaptive_knobs = raw.knobs;
  }
  sim->mode = ParseMode(raw.mode).value();
  if (raw.shards) sim->shards = *raw.shards;
  if (!raw.seq_cutoff.empty()) {
    Result<uint64_t> cutoff = ParseSize(raw.seq_cutoff);
    if (!cutoff.ok()) return Status::InvalidArgument("--seq-cutoff: " + cutoff.status().message());
    SequentialOptions& seq = sim->sequential.emplace();
    seq.enabled = *cutoff > 0;
    if (seq.enabled) seq.read_cutoff_bytes = seq.write_cutoff_bytes = *cutoff;
  }
  return sim->validate();
}

Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) return Status::IoError("cannot write " + path);
  return Status::Ok();
}

}  // namespace

ParsedSimArgs ParseSimArgs(const std::vector<std::string>& args, std::ostream& out,
                           std::ostream& err) {
  CLI::App app("tiercache sim: replay block traces through the cache engine in virtual time and "
               "report miss ratio, SSD bytes written and HDD bytes read per cache size and "
               "policy",
               "tiercache sim");
  app.footer("See docs/sim.md.");
  RawSimArgs raw;
  SimCommandLine cmd;
  AddOptions(app, &raw, &cmd);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e, out, err);
    return {std::nullopt, code == 0 ? kExitOk : kExitUsage};
  }
  if (Status s = Finish(raw, &cmd.sim); !s.ok()) {
    err << "tiercache sim: " << s.message() << "\n";
    return {std::nullopt, kExitUsage};
  }
  return {std::move(cmd), kExitOk};
}

int RunSimCommand(const SimCommandLine& cmd, CommandIo& io) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point last = Clock::now();
  auto progress = [&](const bench::SimTraceSpec& t, const bench::SimResult& r) {
    const Clock::time_point now = Clock::now();
    io.err << "sim: " << t.name << " " << bench::SimBytes(r.sim_case.cache_bytes) << " "
           << r.sim_case.combo() << ": miss ratio " << bench::SimFixed(r.miss_ratio(), 4) << " ("
           << bench::SimFixed(std::chrono::duration<double>(now - last).count(), 1) << " s)\n";
    io.err.flush();
    last = now;
  };
  std::optional<Result<std::vector<bench::SimTraceResult>>> run;
  try {
    run.emplace(bench::RunSim(cmd.sim, cmd.quiet ? bench::SimProgress() : progress));
  } catch (const std::bad_alloc&) {
    // The simulated cache's index lives in memory, as the daemon's does.
    const auto& sizes = cmd.sim.cache_bytes;
    const uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
    return ReportFailure(io, "sim", "NoSpace",
                         "out of memory simulating a cache of " + bench::SimBytes(largest) +
                             " (about 16 bytes of RAM per 4 KiB of cache)",
                         kExitFailed);
  }
  auto& results = *run;
  if (!results.ok()) return ReportFailure(io, "sim", "Failed", results.status().message(), kExitFailed);
  (cmd.json_path == "-" ? io.err : io.out) << bench::SimTextReport(*results);
  if (cmd.json_path == "-") io.out << bench::SimJson(*results);
  Status written;
  if (!cmd.json_path.empty() && cmd.json_path != "-") {
    written = WriteFile(cmd.json_path, bench::SimJson(*results));
  }
  if (written.ok() && !cmd.report_path.empty()) {
    written = WriteFile(cmd.report_path, bench::SimHtmlReport(*results));
  }
  if (!written.ok()) return ReportFailure(io, "sim", "IoError", written.message(), kExitFailed);
  return kExitOk;
}

int RunSim(const CliOptions& options, CommandIo& io) {
  ParsedSimArgs parsed = ParseSimArgs(options.sim_args, io.out, io.err);
  if (!parsed.command) return parsed.exit_code;
  return RunSimCommand(*parsed.command, io);
}

}  // namespace tiercache
