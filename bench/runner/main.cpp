// tiercache-bench: boot, application-launch, game-load and CrystalDiskMark-style workloads on an
// HDD, an SSD and tiercache write-through/write-back caches, N passes each, in virtual time
// (default) or real time. `tiercache bench` execs this. See docs/bench.md.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>
#include <utility>

#include "bench/runner/bench_runner.h"
#include "bench/runner/progress_bar.h"
#include "bench/runner/report_html.h"
#include "bench/runner/report_json.h"
#include "bench/runner/report_text.h"
#include "bench/workloads/text_fields.h"
#include "bench/workloads/trace_import.h"
#include "cachelib/common/size_parser.h"
#include "cachelib/metadata/format.h"
#include "daemon/tiercached/daemon_config.h"
#include "daemon/tiercached/daemon_option.h"

namespace tiercache::bench {
namespace {

struct Cli {
  bool quick = false, realtime = false, virtual_time = false, list = false;
  std::vector<std::string> setups;
  std::string workloads, json, report, profiles, hdd_model = "hdd7200", ssd_model = "sata-ssd";
  bool workloads_given = false;  // --workloads was on the command line (maybe empty)
  std::string cache_size, test_size;
  std::string admission, replacement, seq_cutoff;  // wt/wb engine policy options
  // wt/wb cleaning, as typed: tiercached's option names and texts (--cleaning, --dirty-target...).
  std::vector<std::pair<std::string, std::string>> cleaning;
  std::vector<std::string> traces;  // NAME=FORMAT:FILE
  uint32_t passes = 5;
  uint64_t seed = 1;
  double idle_seconds = 5;
  double fio_runtime = 0;  // 0: 5 s, 1 s with --quick
};

constexpr uint64_t kMinTestSize = uint64_t{1} << 20;

// "512M", "2G", "1GiB", "4096" -> bytes (ParseSize, binary units); 0 only if `allow_zero`.
Result<uint64_t> ParseBenchSize(const std::string& s, bool allow_zero = false) {
  Result<uint64_t> n = ParseSize(s);
  if (n.ok() && *n == 0 && !allow_zero) {
    return Status::InvalidArgument("invalid size '" + s + "': must be > 0");
  }
  return n;
}

Status AddTraces(const Cli& cli, WorkloadCatalog* catalog) {
  for (const std::string& spec : cli.traces) {
    const size_t eq = spec.find('='), colon = spec.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || colon == std::string::npos) {
      return Status::InvalidArgument("--trace wants NAME=FORMAT:FILE, got '" + spec + "'");
    }
    auto t = ImportTraceFile(spec.substr(eq + 1, colon - eq - 1), spec.substr(colon + 1),
                             spec.substr(0, eq));
    if (!t.ok()) return t.status();
    TC_RETURN_IF_ERROR(catalog->add_trace(std::move(t).value()));
  }
  return Status::Ok();
}

void ConfigureQuick(CatalogOptions* catalog, BenchConfig* config) {
  catalog->trace_scale = 0.5;
  catalog->area_bytes = 256ull << 20;
  catalog->large_area_bytes = 1ull << 30;
  catalog->random_ops = 2048;
  config->cache_bytes = 512ull << 20;
  config->fio_runtime_seconds = 1;
}

// The cleaning flags, checked as tiercached checks its own (same option table, ranges and
// messages); the knobs are set only when one was given.
Status ApplyCleaning(const Cli& cli, BenchPolicies* policies) {
  DaemonConfig daemon;
  bool knobs = false;
  for (const auto& [name, text] : cli.cleaning) {
    if (text.empty()) continue;
    Status s = ApplyDaemonOption(*FindDaemonOption(name), text, &daemon);
    if (!s.ok()) return Status::InvalidArgument("--" + name + ": " + s.message());
    if (name == "cleaning") {
      policies->cleaning = daemon.cleaning;
    } else {
      knobs = true;
    }
  }
  if (!knobs) return Status::Ok();
  Result<CleaningOptions> options = CleaningOptionsFor(daemon);
  if (!options.ok()) return options.status();
  policies->cleaning_options = options.value();
  return Status::Ok();
}

Status BuildConfig(const Cli& cli, BenchConfig* config, CatalogOptions* copts) {
  if (cli.quick) ConfigureQuick(copts, config);
  copts->seed = config->seed = cli.seed;
  config->passes = cli.passes;
  config->realtime = cli.realtime;
  config->hdd_profile = cli.hdd_model;
  config->ssd_profile = cli.ssd_model;
  config->idle_between_passes = Nanos(static_cast<int64_t>(cli.idle_seconds * 1e9));
  if (cli.fio_runtime > 0) config->fio_runtime_seconds = cli.fio_runtime;
  if (!cli.setups.empty()) config->setups = cli.setups;
  if (!cli.cache_size.empty()) {
    auto size = ParseBenchSize(cli.cache_size);
    if (!size.ok()) return size.status();
    // As tiercache create refuses it, but before the hdd and ssd setups have run.
    const uint64_t need = format::LayoutFor(config->line_size, format::kMinLines).required_size();
    if (format::LayoutForSsd(*size, config->line_size).line_count < format::kMinLines) {
      return Status::InvalidArgument("--cache-size " + cli.cache_size + ": too small, a cache " +
                                     "needs at least " + std::to_string(need) + " bytes");
    }
    config->cache_bytes = size.value();
    copts->large_area_bytes = 2 * config->cache_bytes;
  }
  if (!cli.test_size.empty()) {
    auto size = ParseBenchSize(cli.test_size);
    if (!size.ok()) return size.status();
    // The sequential tests read and write 1 MiB blocks.
    if (*size < kMinTestSize) {
      return Status::InvalidArgument("--test-size " + cli.test_size + ": must be at least 1 MiB");
    }
    // hdtune and the sequential tests move 1 MiB blocks: a remainder would be a position of a
    // few bytes, timed as a block.
    if (*size % kMinTestSize != 0) {
      return Status::InvalidArgument("--test-size " + cli.test_size +
                                     ": must be a multiple of 1 MiB");
    }
    copts->area_bytes = size.value();
  }
  config->policies.admission = cli.admission;
  config->policies.replacement = cli.replacement;
  if (!cli.seq_cutoff.empty()) {
    auto size = ParseBenchSize(cli.seq_cutoff, /*allow_zero=*/true);
    if (!size.ok()) return Status::InvalidArgument("--seq-cutoff: " + size.status().message());
    if (*size % kSectorSize != 0) {
      return Status::InvalidArgument("--seq-cutoff " + cli.seq_cutoff +
                                     ": must be a multiple of 4 KiB (0: bypass off)");
    }
    config->policies.seq_cutoff_bytes = size.value();
  }
  TC_RETURN_IF_ERROR(ApplyCleaning(cli, &config->policies));
  return config->policies.validate();
}

// An output file that cannot be written is found before the run, not after it.
Status CheckWritable(const std::string& flag, const std::string& path) {
  if (path.empty()) return Status::Ok();
  namespace fs = std::filesystem;
  const fs::path parent = fs::absolute(path).parent_path();
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) {
    return Status::InvalidArgument(flag + " " + path + ": no directory " + parent.string());
  }
  const bool exists = fs::exists(path, ec);
  if (exists ? access(path.c_str(), W_OK) != 0 : access(parent.c_str(), W_OK) != 0) {
    return Status::InvalidArgument(flag + " " + path + ": not writable (" +
                                   std::strerror(errno) + ")");
  }
  return Status::Ok();
}

// MemAvailable from /proc/meminfo, or 0 when it cannot be read.
uint64_t MemoryAvailable() {
  FILE* f = std::fopen("/proc/meminfo", "r");
  if (f == nullptr) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
  }
  std::fclose(f);
  return uint64_t(kib) * 1024;
}

// Sizes that do not fit the HDD model, or the memory the bench keeps its disks in, are refused
// before anything runs (a 2 TiB --test-size used to grow until the OOM killer stopped it).
Status CheckFits(const Cli& cli, const BenchConfig& config, const CatalogOptions& copts,
                 const ModelProfiles& profiles, const std::vector<WorkloadSpec>& workloads) {
  auto hdd = profiles.find(config.hdd_profile);
  if (!hdd.ok() || hdd->kind != ModelProfile::Kind::kHdd) return Status::Ok();  // said later
  const uint64_t capacity = hdd->hdd.capacity_bytes;
  const std::string disk =
      "the HDD model " + config.hdd_profile + " (" + FormatSize(capacity) + ")";
  if (config.cache_bytes > capacity) {
    return Status::InvalidArgument("--cache-size " + cli.cache_size + ": larger than " + disk);
  }
  if (copts.area_offset + copts.area_bytes > capacity) {
    const std::string which = cli.test_size.empty() ? "" : "--test-size " + cli.test_size + ": ";
    return Status::InvalidArgument(which + "the test area (from " +
                                   FormatSize(copts.area_offset) + ") must fit on " + disk);
  }
  uint64_t largest = 0;
  for (const WorkloadSpec& w : workloads) largest = std::max(largest, w.area_bytes);
  if (copts.area_offset + largest > capacity) {
    return Status::InvalidArgument("cdm-large's test area of twice --cache-size (" +
                                   FormatSize(largest) + ") must fit on " + disk);
  }
  // In virtual time the disks are in memory: a cached setup holds the test area and the cache.
  const uint64_t need = config.realtime ? 0 : largest + config.cache_bytes;
  const uint64_t available = MemoryAvailable();
  if (available != 0 && need > available) {
    return Status::InvalidArgument("the test area (" + FormatSize(largest) + ") and the cache (" +
                                   FormatSize(config.cache_bytes) + ") need " + FormatSize(need) +
                                   " of memory for the in-memory disks; " +
                                   FormatSize(available) + " is available");
  }
  return Status::Ok();
}

std::string Selection(const Cli& cli) {
  if (cli.workloads_given) return cli.workloads;  // empty: "no workloads selected"
  if (!cli.quick) return WorkloadCatalog::DefaultSelection();
  return "traces,cdm,asssd,hdtune,cdm-large:RND4K-Q1T1-read";
}

int Fail(const Status& s) {
  std::fprintf(stderr, "tiercache-bench: %s\n", s.ToString().c_str());
  return 1;
}

// Prints the tables, writes --json and --report; 1 if a file fails or a setup had an error.
int Output(const Cli& cli, const BenchResults& results) {
  std::fputs(FormatTextReport(results).c_str(), stdout);
  std::fflush(stdout);
  if (!cli.json.empty()) {
    if (Status s = WriteTextFile(cli.json, ToJsonText(results)); !s.ok()) return Fail(s);
    std::fprintf(stderr, "wrote %s\n", cli.json.c_str());
  }
  if (!cli.report.empty()) {
    if (Status s = WriteTextFile(cli.report, ToHtml(results)); !s.ok()) return Fail(s);
    std::fprintf(stderr, "wrote %s\n", cli.report.c_str());
  }
  for (const auto& w : results.workloads) {
    for (const auto& s : w.setups) {
      if (!s.error.empty()) return 1;
    }
  }
  return 0;
}

int Run(const Cli& cli) {
  auto profiles = cli.profiles.empty() ? ModelProfiles::Builtin() : ModelProfiles::Load(cli.profiles);
  if (!profiles.ok()) return Fail(profiles.status());
  BenchConfig config;
  CatalogOptions copts;
  if (Status s = BuildConfig(cli, &config, &copts); !s.ok()) return Fail(s);
  if (Status s = CheckWritable("--json", cli.json); !s.ok()) return Fail(s);
  if (Status s = CheckWritable("--report", cli.report); !s.ok()) return Fail(s);
  WorkloadCatalog catalog(copts);
  if (Status s = AddTraces(cli, &catalog); !s.ok()) return Fail(s);
  auto workloads = catalog.select(Selection(cli));
  if (!workloads.ok()) return Fail(workloads.status());
  if (Status s = CheckFits(cli, config, copts, profiles.value(), workloads.value()); !s.ok()) {
    return Fail(s);
  }
  if (cli.list) {
    for (const auto& w : workloads.value()) {
      std::printf("%s\t%s\n", w.name.c_str(), w.description.c_str());
    }
    return 0;
  }
  ProgressBar bar(workloads->size() * config.setups.size() * config.passes, config.passes);
  BenchRunner runner(config, std::move(profiles).value());
  auto results = runner.run(workloads.value(), [&](const std::string& w, const std::string& s,
                                                   uint32_t p) { bar.step(w, s, p); });
  bar.finish();
  if (!results.ok()) return Fail(results.status());
  return Output(cli, results.value());
}

}  // namespace
}  // namespace tiercache::bench

int main(int argc, char** argv) {
  tiercache::bench::Cli cli;
  CLI::App app{"tiercache-bench: HDD vs SSD vs tiercache caches on boot, application launch and "
               "CrystalDiskMark-style workloads (docs/bench.md)"};
  app.add_flag("--quick", cli.quick, "smaller workloads and cache (for make demo)");
  auto* rt = app.add_flag("--realtime", cli.realtime, "run the device models in real time");
  app.add_flag("--virtual", cli.virtual_time, "virtual time (default)")->excludes(rt);
  app.add_option("--setups", cli.setups,
                 "hdd, ssd, wt, wb (default: all), nbdkit-cache (--realtime synthetic tests)")
      ->delimiter(',');
  app.add_option("--workloads", cli.workloads,
                 "comma list: boot, applaunch, gameload, realapp, realapp-install, traces, cdm, "
                 "asssd, cdm-large, hdtune, all, "
                 "cdm:RND4K-Q32T1-read style names, imported trace names");
  app.add_option("--passes", cli.passes, "passes per workload and setup (pass 1 cold)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--json", cli.json, "write results as JSON");
  app.add_option("--report", cli.report, "write a self-contained HTML report");
  app.add_option("--seed", cli.seed, "seed for workloads and models");
  app.add_option("--hdd-model", cli.hdd_model, "HDD profile (hdd7200, hdd5400, hdd10k)");
  app.add_option("--ssd-model", cli.ssd_model, "SSD profile (sata-ssd, nvme)");
  app.add_option("--profiles", cli.profiles, "device profiles JSON (default: built in)");
  app.add_option("--cache-size", cli.cache_size, "SSD size of the wt/wb caches, e.g. 2G");
  app.add_option("--test-size", cli.test_size,
                 "CrystalDiskMark/AS SSD/HD Tune test area, e.g. 1G (cdm-large uses twice the "
                 "cache)");
  app.add_option("--admission", cli.admission, "wt/wb admission policy name");
  app.add_option("--replacement", cli.replacement, "wt/wb replacement policy name");
  app.add_option("--seq-cutoff", cli.seq_cutoff,
                 "wt/wb sequential bypass cutoff in bytes, e.g. 4M (0: bypass off)");
  // tiercached's cleaning flags, with its help; checked by BuildConfig with its option table.
  cli.cleaning = {{"cleaning", ""},    {"dirty-target", ""}, {"dirty-high", ""},
                  {"max-dirty-age", ""}, {"busy-share", ""},   {"idle-after", ""}};
  for (auto& [name, text] : cli.cleaning) {
    app.add_option("--" + name, text, "wt/wb: " + tiercache::FindDaemonOption(name)->help)
        ->type_name(name == "cleaning"                                     ? "NAME"
                    : name == "max-dirty-age" || name == "idle-after" ? "SECONDS"
                                                                      : "SHARE");
  }
  app.add_option("--idle", cli.idle_seconds, "idle seconds between passes (cleaning, destaging)")
      ->check(CLI::Range(0.0, 3600.0));
  app.add_option("--fio-runtime", cli.fio_runtime,
                 "--realtime: seconds per fio pass of a synthetic test (default 5, 1 with --quick)")
      ->check(CLI::Range(0.1, 3600.0));
  app.add_option("--trace", cli.traces, "import a trace as a workload: NAME=FORMAT:FILE with "
                                        "FORMAT blkparse, fio or msr");
  app.add_flag("--list", cli.list, "list the selected workloads and exit");
  try {
    app.parse(argc, argv);
    cli.workloads_given = app.count("--workloads") > 0;
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a bad argument exits 1, as every other failure (docs/bench.md).
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    return tiercache::bench::Run(cli);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "tiercache-bench: out of memory (the disks and the cache are in memory: "
                         "try a smaller --cache-size or --test-size)\n");
    return 1;
  }
}
