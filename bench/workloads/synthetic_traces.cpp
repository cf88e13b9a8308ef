#include "bench/workloads/synthetic_traces.h"

#include <algorithm>
#include <cmath>

#include "bench/workloads/rng.h"
#include "bench/workloads/stream_interleaver.h"

namespace tiercache::bench {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * 1024;

uint64_t Scaled(uint64_t n, double scale) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(static_cast<double>(n) * scale)));
}

// A 4 KiB-aligned offset in [base, base + span - length).
uint64_t PlaceIn(Rng& rng, uint64_t base, uint64_t span, uint64_t length) {
  const uint64_t slots = std::max<uint64_t>(1, (span - std::min(span, length)) / kPage);
  return base + rng.below(slots) * kPage;
}

Nanos Think(Rng& rng, Nanos mean) {
  return Nanos(static_cast<int64_t>(rng.exponential(static_cast<double>(mean.count()))));
}

// One unit of a boot stream's work; kinds are shuffled within each stream.
struct BootItem {
  enum Kind : uint8_t { kRun, kRandom, kWrite } kind;
  uint64_t bytes;
};

std::vector<std::vector<BootItem>> PlanBootItems(const BootTraceParams& p, Rng& rng) {
  std::vector<std::vector<BootItem>> items(p.streams);
  const uint64_t seq_total = Scaled(p.sequential_bytes, p.scale);
  for (uint64_t done = 0; done < seq_total;) {
    uint64_t run = static_cast<uint64_t>(rng.log_uniform(64 * kKiB, 4 * kMiB)) / kPage * kPage;
    run = std::min(std::max(run, kPage), seq_total - done);
    items[rng.below(p.streams)].push_back({BootItem::kRun, run});
    done += run;
  }
  const uint64_t randoms = Scaled(p.random_reads, p.scale);
  for (uint64_t i = 0; i < randoms; ++i) items[rng.below(p.streams)].push_back({BootItem::kRandom, kPage});
  const uint64_t reads = randoms + seq_total / (128 * kKiB);
  const uint64_t writes = static_cast<uint64_t>(std::llround(
      static_cast<double>(reads) * p.write_fraction / (1.0 - p.write_fraction)));
  for (uint64_t i = 0; i < writes; ++i) {
    items[rng.below(p.streams)].push_back({BootItem::kWrite, (1 + rng.below(4)) * kPage});
  }
  for (auto& list : items) {
    for (size_t i = list.size(); i > 1; --i) std::swap(list[i - 1], list[rng.below(i)]);
  }
  return items;
}

}  // namespace

Trace GenerateBootTrace(const BootTraceParams& p, uint64_t seed) {
  Rng rng(SeedFor(seed, "boot"));
  StreamInterleaver streams;
  // Kernel and initramfs from /boot: one sequential run, read ahead two requests deep.
  const int kernel = streams.add_stream(2);
  const uint64_t kernel_bytes = Scaled(p.kernel_bytes, p.scale) / kPage * kPage;
  const uint64_t kernel_at = p.os_offset + (1ull << 30);
  for (uint64_t off = 0; off < kernel_bytes; off += 256 * kKiB) {
    streams.add(kernel, TraceOp::kRead, kernel_at + off, std::min(256 * kKiB, kernel_bytes - off),
                Think(rng, p.think_mean / 4));
  }
  const uint64_t log_at = p.os_offset + p.os_span - (256 * kMiB);
  uint64_t log_pos = 0;
  auto items = PlanBootItems(p, rng);
  for (uint32_t s = 0; s < p.streams; ++s) {
    const int id = streams.add_stream(1, kernel);
    uint64_t last_run = PlaceIn(rng, p.os_offset, p.os_span, 0);
    for (const BootItem& item : items[s]) {
      if (item.kind == BootItem::kRun) {
        last_run = PlaceIn(rng, p.os_offset, p.os_span - 256 * kMiB, item.bytes);
        for (uint64_t off = 0; off < item.bytes; off += 128 * kKiB) {
          streams.add(id, TraceOp::kRead, last_run + off, std::min(128 * kKiB, item.bytes - off),
                      Think(rng, p.think_mean));
        }
      } else if (item.kind == BootItem::kRandom) {
        const bool near = rng.chance(p.locality) && last_run >= p.os_offset + 2 * kMiB;
        const uint64_t at = near ? PlaceIn(rng, last_run - 2 * kMiB, 4 * kMiB, kPage)
                                 : PlaceIn(rng, p.os_offset, p.os_span, kPage);
        streams.add(id, TraceOp::kRead, at, kPage, Think(rng, p.think_mean));
      } else if (rng.chance(0.5)) {
        streams.add(id, TraceOp::kWrite, log_at + log_pos % (256 * kMiB), item.bytes,
                    Think(rng, p.think_mean));
        log_pos += item.bytes;
      } else {
        streams.add(id, TraceOp::kWrite, PlaceIn(rng, p.os_offset, p.os_span, item.bytes),
                    item.bytes, Think(rng, p.think_mean));
      }
    }
  }
  return streams.build("boot");
}

Trace GenerateAppLaunchTrace(const AppLaunchParams& p, uint64_t seed) {
  Rng rng(SeedFor(seed, "applaunch"));
  StreamInterleaver streams;
  int previous = -1;
  const uint64_t per_app = Scaled(p.requests_per_app, p.scale);
  for (uint32_t a = 0; a < p.apps; ++a) {
    const int id = streams.add_stream(2, previous);
    previous = id;
    const uint64_t base = PlaceIn(rng, p.region_offset, p.region_span, p.app_footprint);
    const uint64_t profile = PlaceIn(rng, p.region_offset, p.region_span, 16 * kMiB);
    uint64_t pos = base;  // where the app's last read ended
    for (uint64_t i = 0; i < per_app; ++i) {
      const Nanos think = Think(rng, p.think_mean);
      if (rng.chance(p.write_fraction)) {  // settings, caches, recent-files lists
        streams.add(id, TraceOp::kWrite, PlaceIn(rng, profile, 16 * kMiB, kPage), kPage, think);
      } else if (i > 0 && !rng.chance(p.random_fraction)) {
        // Continue reading the current file in 64 KiB requests.
        if (pos + 64 * kKiB > base + p.app_footprint) pos = base;
        streams.add(id, TraceOp::kRead, pos, 64 * kKiB, think);
        pos += 64 * kKiB;
      } else {
        // A random read: mostly 4 KiB, some up to 64 KiB.
        const uint64_t len = rng.chance(0.6) ? kPage : (2 + rng.below(15)) * kPage;
        const uint64_t at = PlaceIn(rng, base, p.app_footprint, len);
        streams.add(id, TraceOp::kRead, at, len, think);
        pos = at + len;
      }
    }
  }
  return streams.build("applaunch");
}

Trace GenerateGameLoadTrace(const GameLoadParams& p, uint64_t seed) {
  Rng rng(SeedFor(seed, "gameload"));
  StreamInterleaver streams;
  std::vector<int> ids;
  for (uint32_t s = 0; s < std::max<uint32_t>(1, p.streams); ++s) ids.push_back(streams.add_stream(1));
  // Pack files read front to back in 1-2 MiB requests, spread over the loader threads.
  const uint64_t pack_bytes = Scaled(p.level_bytes, p.scale) / std::max<uint32_t>(1, p.pack_files);
  for (uint32_t f = 0; f < p.pack_files; ++f) {
    const int id = ids[f % ids.size()];
    const uint64_t at = PlaceIn(rng, p.region_offset, p.install_span, pack_bytes);
    for (uint64_t off = 0; off < pack_bytes;) {
      const uint64_t len = std::min((256 + rng.below(257)) * kPage, pack_bytes - off);
      streams.add(id, TraceOp::kRead, at + off, std::max(len, kPage), Think(rng, p.think_mean));
      off += len;
      // Small asset reads between the big ones.
      const uint64_t smalls = Scaled(p.random_reads, p.scale) * len / std::max<uint64_t>(1, Scaled(p.level_bytes, p.scale));
      for (uint64_t k = 0; k < smalls + (rng.chance(0.5) ? 1 : 0); ++k) {
        const uint64_t slen = (1 + rng.below(4)) * kPage;
        streams.add(ids[rng.below(ids.size())], TraceOp::kRead,
                    PlaceIn(rng, p.region_offset, p.install_span, slen), slen, Think(rng, p.think_mean));
      }
    }
  }
  for (uint32_t w = 0; w < p.writes; ++w) {
    streams.add(ids[0], TraceOp::kWrite, PlaceIn(rng, p.region_offset + p.install_span, 64 * kMiB, kPage),
                kPage, Think(rng, p.think_mean));
  }
  return streams.build("gameload");
}

}  // namespace tiercache::bench
