// Synthetic boot, application-launch and game-load traces, generated from the characteristics the
// storage reviews documented (docs/bench.md has the derivation of each default). Each trace is a
// set of streams (processes) that issue dependent requests with host think time between them;
// streams are interleaved by a nominal timeline, so the replay order is plausible for any device.
// Same parameters and seed -> the same trace. Pure functions; thread-safe.
#pragma once

#include <cstdint>

#include "bench/workloads/trace.h"

namespace tiercache::bench {

// OS boot: the kernel and initramfs read in one sequential run, then services starting in
// parallel: files read in sequential runs, random 4 KiB reads (metadata, small files, page faults;
// many near the file last read), and a few writes (logs, state).
struct BootTraceParams {
  uint64_t os_offset = 0;                  // start of the system partition
  uint64_t os_span = 32ull << 30;          // where the system's files are spread
  uint64_t kernel_bytes = 48ull << 20;     // kernel + initramfs, 256 KiB requests at QD2
  uint32_t streams = 6;                    // services starting in parallel
  uint64_t sequential_bytes = 200ull << 20;  // file data in runs of 64 KiB .. 4 MiB (128 KiB I/O)
  uint32_t random_reads = 6000;            // 4 KiB reads
  double locality = 0.6;                   // share of random reads within 2 MiB of the last run
  double write_fraction = 0.03;            // of all requests; 4-16 KiB, half appended to a log
  Nanos think_mean = std::chrono::microseconds(800);  // host CPU between a stream's requests
  double scale = 1.0;                      // multiplies byte and request counts
};
Trace GenerateBootTrace(const BootTraceParams& params, uint64_t seed);

// Starting applications one after another (PCMark 7 "starting applications": reads:writes about
// 63:1, 86% of requests random). Each app reads from its own install footprint at QD2.
struct AppLaunchParams {
  uint64_t region_offset = 8ull << 30;   // applications' directory
  uint64_t region_span = 20ull << 30;
  uint32_t apps = 5;
  uint32_t requests_per_app = 1200;
  uint64_t app_footprint = 256ull << 20;  // an app's files lie within this window
  double random_fraction = 0.86;          // of requests; the rest continue sequential runs
  double write_fraction = 1.0 / 64;       // reads:writes = 63:1
  Nanos think_mean = std::chrono::microseconds(1000);
  double scale = 1.0;
};
Trace GenerateAppLaunchTrace(const AppLaunchParams& params, uint64_t seed);

// Loading a game level (PCMark 7 gaming): random by request count (small reads of many assets),
// sequential by bytes (1-2 MiB reads through level pack files dominate the volume).
struct GameLoadParams {
  uint64_t region_offset = 200ull << 30;  // the game's install directory
  uint64_t install_span = 8ull << 30;
  uint64_t level_bytes = 400ull << 20;    // pack files read front to back
  uint32_t pack_files = 6;
  uint32_t random_reads = 1500;           // 4-16 KiB
  uint32_t writes = 12;                   // settings, shader cache
  uint32_t streams = 2;                   // loader threads
  Nanos think_mean = std::chrono::microseconds(600);  // decompression and setup
  double scale = 1.0;
};
Trace GenerateGameLoadTrace(const GameLoadParams& params, uint64_t seed);

}  // namespace tiercache::bench
