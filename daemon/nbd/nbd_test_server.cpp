// nbd_test_server: serves a MemoryDevice or a file over NBD with the tiercache NBD server.
// Test-only: the e2e tests and benchmarks run real NBD clients against it. SIGTERM/SIGINT
// stop it gracefully (in-flight requests finish) and it exits 0. --direct-file serves the file
// through tiercached's own FileDevice (O_DIRECT, io_uring or libaio): tiercached's front-end and
// device path without the cache engine, the floor its benchmarks measure the engine against.
#include <malloc.h>
#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/size_parser.h"
#include "cachelib/device/file_device.h"
#include "cachelib/device/memory_device.h"
#include "daemon/common/daemon_process.h"
#include "daemon/nbd/server.h"
#include "daemon/nbd/test_file_device.h"

namespace {

using tiercache::Device;
using tiercache::EpollEventLoop;

constexpr const char* kUsage =
    "usage: nbd_test_server (--socket PATH | --tcp HOST:PORT)...\n"
    "         [--memory SIZE | --file PATH | --direct-file PATH]\n"
    "         [--block-size N] [--threads N] [--poll-us N] [--export-name NAME] [--description TEXT]\n"
    "         [--pidfile PATH] [--drain-timeout-ms N] [--max-connections N]\n"
    "         [--handshake-timeout-ms N] [--range-chunk SIZE] [--max-in-flight-bytes SIZE]\n"
    "         [--verbose]\n"
    "  SIZE takes K, M, G, T suffixes (powers of 1024). Default: --memory 1G.\n";

struct Args {
  tiercache::nbd::ServerConfig config;
  uint64_t memory_size = 1ull << 30;
  std::string file;
  std::string direct_file;
  uint32_t block_size = 512;
  std::string pidfile;
};

// Sizes and counts alike: digits with an optional K, M, G or T suffix (ParseSize).
bool ParseNumber(const char* text, uint64_t& out) {
  tiercache::Result<uint64_t> n = tiercache::ParseSize(text);
  if (!n.ok()) return false;
  out = *n;
  return true;
}

const option kOptions[] = {{"socket", required_argument, nullptr, 's'},
                           {"tcp", required_argument, nullptr, 't'},
                           {"memory", required_argument, nullptr, 'm'},
                           {"file", required_argument, nullptr, 'f'},
                           {"direct-file", required_argument, nullptr, 'F'},
                           {"block-size", required_argument, nullptr, 'b'},
                           {"threads", required_argument, nullptr, 'j'},
                           {"poll-us", required_argument, nullptr, 'P'},
                           {"export-name", required_argument, nullptr, 'e'},
                           {"description", required_argument, nullptr, 'd'},
                           {"pidfile", required_argument, nullptr, 'p'},
                           {"verbose", no_argument, nullptr, 'v'},
                           {"drain-timeout-ms", required_argument, nullptr, 'D'},
                           {"max-connections", required_argument, nullptr, 'C'},
                           {"handshake-timeout-ms", required_argument, nullptr, 'H'},
                           {"range-chunk", required_argument, nullptr, 'R'},
                           {"max-in-flight-bytes", required_argument, nullptr, 'I'},
                           {nullptr, 0, nullptr, 0}};

// Applies one parsed option; false when its value is malformed or the option unknown.
bool ApplyOption(int c, const char* value, Args& args) {
  uint64_t n = 0;
  switch (c) {
    case 's': args.config.unix_socket = value; return true;
    case 't': args.config.tcp_listen = value; return true;
    case 'f': args.file = value; return true;
    case 'F': args.direct_file = value; return true;
    case 'e': args.config.export_name = value; return true;
    case 'd': args.config.description = value; return true;
    case 'p': args.pidfile = value; return true;
    case 'v': args.config.connection.verbose = true; return true;
    case 'm': return ParseNumber(value, args.memory_size);
    default: break;
  }
  if (!ParseNumber(value, n)) return false;
  switch (c) {
    case 'b': args.block_size = uint32_t(n); return true;
    case 'j': args.config.threads = unsigned(n); return true;
    case 'P': args.config.loop.busy_poll = std::chrono::microseconds(n); return true;
    case 'D': args.config.connection.drain_timeout = std::chrono::milliseconds(n); return true;
    case 'C': args.config.max_connections = size_t(n); return true;
    case 'H': args.config.connection.handshake_timeout = std::chrono::milliseconds(n); return true;
    case 'R': args.config.connection.range_chunk_bytes = n; return true;
    case 'I': args.config.connection.max_in_flight_bytes = n; return true;
    default: return false;
  }
}

bool ParseArgs(int argc, char** argv, Args& args) {
  for (int c; (c = getopt_long(argc, argv, "", kOptions, nullptr)) != -1;) {
    if (c == '?' || !ApplyOption(c, optarg, args)) return false;
  }
  return optind == argc;
}

tiercache::Result<std::unique_ptr<Device>> OpenDevice(const Args& args) {
  if (args.block_size == 0 || (args.block_size & (args.block_size - 1)) != 0) {
    return tiercache::Status::InvalidArgument("block size must be a power of two");
  }
  if (!args.file.empty() && !args.direct_file.empty()) {
    return tiercache::Status::InvalidArgument("--file and --direct-file exclude each other");
  }
  if (!args.direct_file.empty()) {
    // The block size is the file's own (4096 for files), as when tiercached opens it.
    auto dev = tiercache::FileDevice::Open(args.direct_file);
    if (!dev.ok()) return dev.status();
    return std::unique_ptr<Device>(std::move(dev).value());
  }
  if (!args.file.empty()) {
    auto dev = tiercache::nbd::TestFileDevice::Open(args.file, args.block_size);
    if (!dev.ok()) return dev.status();
    return std::unique_ptr<Device>(std::move(dev).value());
  }
  return std::unique_ptr<Device>(
      new tiercache::MemoryDevice("memory", args.memory_size, args.block_size));
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "nbd_test_server: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);  // reuse request buffers instead of mmap per request
  Args args;
  if (!ParseArgs(argc, argv, args)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  tiercache::DaemonProcess process;  // blocks the stop signals before any thread starts

  auto device = OpenDevice(args);
  if (!device.ok()) return Fail(device.status().ToString());
  auto main_loop = EpollEventLoop::Create();
  if (!main_loop.ok()) return Fail(main_loop.status().ToString());
  EpollEventLoop& loop = **main_loop;
  auto server = tiercache::nbd::Server::Start(**device, args.config);
  if (!server.ok()) return Fail(server.status().ToString());

  tiercache::Status watching =
      process.StopOnSignal(loop, [&] { (*server)->stop([&loop] { loop.stop(); }); });
  if (!watching.ok()) return Fail(watching.ToString());
  if (!args.config.tcp_listen.empty()) {
    std::printf("nbd_test_server: listening on TCP port %u\n", unsigned((*server)->tcp_port()));
    std::fflush(stdout);
  }
  if (!args.pidfile.empty()) {
    tiercache::Status written = process.WritePidfile(args.pidfile);
    if (!written.ok()) return Fail(written.ToString());
  }
  loop.run();
  // A FileDevice unregisters from the server's loops as it goes: before the Server (server.h).
  device->reset();
  server->reset();
  process.RemovePidfile();
  return 0;
}
