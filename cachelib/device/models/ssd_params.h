// SsdParams: what SsdModel simulates about a flash SSD: host link bandwidth, command overhead, and
// internal parallelism (independent flash units, each reading or programming one stripe chunk at a
// time). Plain values; thread-compatible. Defaults are the sata-ssd profile; docs/device-models.md
// says where each number comes from.
#pragma once

#include <cstdint>
#include <string>

#include "cachelib/common/clock.h"
#include "cachelib/common/status.h"

namespace tiercache {

struct SsdParams {
  std::string name = "sata-ssd";
  uint32_t units = 16;                 // flash units working in parallel (channels x dies). >= 1
  uint64_t stripe_bytes = 16 * 1024;   // a request is split into chunks of this many bytes,
                                       // chunk k of the address space on unit k % units
  double command_overhead_us = 15;     // controller/firmware time per command
  double read_latency_us = 70;         // array read per chunk (tR plus ECC)
  double program_latency_us = 150;     // unit busy time per written chunk (buffered program)
  double write_ack_us = 8;             // a write is acknowledged this long after its transfer...
  double write_lag_ms = 2;             // ...unless its program finishes more than this later
  double unit_read_mb_s = 400;         // unit <-> controller transfer, 10^6 B/s
  double unit_write_mb_s = 400;
  double link_read_mb_s = 550;         // host link payload rate, 10^6 B/s
  double link_write_mb_s = 520;
  bool full_duplex = false;            // SATA is half duplex; PCIe is full duplex
  uint32_t queue_depth = 32;           // commands the drive accepts; the rest wait in FIFO order
  double flush_us = 50;                // flush cost once all programs are done

  // InvalidArgument naming the first bad field.
  Status validate() const;
};

}  // namespace tiercache
