// ublk_test_server: serves a MemoryDevice or a file as /dev/ublkbN with UblkServer.
// Test-only (tests/vm/): the VM tests run it inside a guest whose kernel has ublk_drv.
// SIGTERM/SIGINT stop it cleanly (STOP_DEV after in-flight I/O, DEL_DEV) and it exits 0;
// after kill -9, `--recover N` reattaches a new process to /dev/ublkbN.
#include <getopt.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/size_parser.h"
#include "cachelib/device/file_device.h"
#include "cachelib/device/memory_device.h"
#include "daemon/common/daemon_process.h"
#include "daemon/ublk/ublk_server.h"

namespace {

using tiercache::Device;
using tiercache::Status;

constexpr const char* kUsage =
    "usage: ublk_test_server [--memory SIZE | --file PATH [--buffered]] [--id N] [--queues N]\n"
    "         [--depth N] [--max-io BYTES] [--logical-block N] [--no-recovery] [--no-reissue]\n"
    "         [--recover N] [--pidfile PATH] [--control PATH]\n"
    "  SIZE takes K, M, G suffixes. Default: --memory 256M. Prints 'READY /dev/ublkbN ...' when\n"
    "  the block device exists, with ring=loop (the queues' commands on their event loops'\n"
    "  io_uring) or ring=own (TIERCACHE_UBLK_OWN_RING=1: a ring per queue), and fixed_file=1\n"
    "  fixed_buffers=1 when every queue registered /dev/ublkcN and its buffers with that ring.\n"
    "  'STOPPED ...' after SIGTERM: the Device's counters, and with --file the reads and writes\n"
    "  that went READ_FIXED/WRITE_FIXED (fixed_buffers=).\n";

struct Args {
  tiercache::UblkOptions options;
  uint64_t memory_size = 256ull << 20;
  std::string file;
  bool buffered = false;
  int recover_id = -1;
  std::string pidfile;
};

// Sizes and counts alike: digits with an optional K, M, G or T suffix (ParseSize).
bool ParseNumber(const char* text, uint64_t& out) {
  tiercache::Result<uint64_t> n = tiercache::ParseSize(text);
  if (!n.ok()) return false;
  out = *n;
  return true;
}

bool ParseArgs(int argc, char** argv, Args& a) {
  static const option kOptions[] = {{"memory", required_argument, nullptr, 'm'},
                                    {"file", required_argument, nullptr, 'f'},
                                    {"buffered", no_argument, nullptr, 'B'},
                                    {"id", required_argument, nullptr, 'i'},
                                    {"queues", required_argument, nullptr, 'q'},
                                    {"depth", required_argument, nullptr, 'd'},
                                    {"max-io", required_argument, nullptr, 'x'},
                                    {"logical-block", required_argument, nullptr, 'l'},
                                    {"no-recovery", no_argument, nullptr, 'R'},
                                    {"no-reissue", no_argument, nullptr, 'I'},
                                    {"recover", required_argument, nullptr, 'r'},
                                    {"pidfile", required_argument, nullptr, 'p'},
                                    {"control", required_argument, nullptr, 'c'},
                                    {nullptr, 0, nullptr, 0}};
  uint64_t n = 0;
  for (int c; (c = getopt_long(argc, argv, "", kOptions, nullptr)) != -1;) {
    if (optarg != nullptr && c != 'f' && c != 'p' && c != 'c' && !ParseNumber(optarg, n)) {
      return false;
    }
    switch (c) {
      case 'm':
        a.memory_size = n;
        break;
      case 'f':
        a.file = optarg;
        break;
      case 'B':
        a.buffered = true;
        break;
      case 'i':
        a.options.dev_id = int32_t(n);
        break;
      case 'q':
        a.options.queues = uint32_t(n);
        break;
      case 'd':
        a.options.depth = uint32_t(n);
        break;
      case 'x':
        a.options.max_io_bytes = uint32_t(n);
        break;
      case 'l':
        a.options.logical_block_size = uint32_t(n);
        break;
      case 'R':
        a.options.user_recovery = false;
        break;
      case 'I':
        a.options.recovery_reissue = false;
        break;
      case 'r':
        a.recover_id = int(n);
        break;
      case 'p':
        a.pidfile = optarg;
        break;
      case 'c':
        a.options.control_path = optarg;
        break;
      default:
        return false;
    }
  }
  return optind == argc;
}

// A file opens O_DIRECT unless --buffered, or unless its filesystem refuses O_DIRECT (tmpfs).
tiercache::Result<std::unique_ptr<Device>> OpenDevice(const Args& a) {
  if (a.file.empty()) {
    return std::unique_ptr<Device>(new tiercache::MemoryDevice("memory", a.memory_size, 512));
  }
  tiercache::FileDeviceOptions fo;
  fo.buffered = a.buffered;
  auto dev = tiercache::FileDevice::Open(a.file, fo);
  if (!dev.ok() && !a.buffered && dev.status().code() == Status::Code::kInvalidArgument) {
    fo.buffered = true;
    dev = tiercache::FileDevice::Open(a.file, fo);
  }
  if (!dev.ok()) return dev.status();
  return std::unique_ptr<Device>(std::move(dev).value());
}

void PrintReady(const tiercache::UblkServer& srv) {
  std::printf(
      "READY %s queues=%u depth=%u max_io=%u ring=%s fixed_file=%d fixed_buffers=%d "
      "kernel_features=%s device_flags=%s\n",
      srv.block_device().c_str(), srv.queues(), srv.depth(), srv.max_io_bytes(),
      srv.command_rings().c_str(), int(srv.fixed_files()), int(srv.fixed_buffers()),
      tiercache::UblkServer::FeatureNames(srv.kernel_features()).c_str(),
      tiercache::UblkServer::FeatureNames(srv.device_flags()).c_str());
  std::fflush(stdout);
}

// The Device's counters: the VM test checks that the kernel sent FLUSH, and that reads and
// writes went fixed when the buffers were registered.
void PrintStopped(const tiercache::UblkServer& srv, const Device& device) {
  const tiercache::DeviceStats& st = device.stats();
  auto n = [](const std::atomic<uint64_t>& v) { return static_cast<unsigned long long>(v.load()); };
  const auto* file = dynamic_cast<const tiercache::FileDevice*>(&device);
  const auto fixed =
      static_cast<unsigned long long>(file != nullptr ? file->io_counters().fixed_buffers : 0);
  std::printf(
      "STOPPED %s requests=%llu reads=%llu writes=%llu flushes=%llu discards=%llu "
      "write_zeroes=%llu errors=%llu fixed_buffers=%llu\n",
      srv.block_device().c_str(), static_cast<unsigned long long>(srv.requests_served()),
      n(st.reads), n(st.writes), n(st.flushes), n(st.discards), n(st.write_zeroes), n(st.errors),
      fixed);
  std::fflush(stdout);
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "ublk_test_server: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, args)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  tiercache::DaemonProcess process;  // blocks the stop signals before any thread starts

  auto device = OpenDevice(args);
  if (!device.ok()) return Fail(device.status().ToString());
  auto main_loop = tiercache::EpollEventLoop::Create();
  if (!main_loop.ok()) return Fail(main_loop.status().ToString());
  tiercache::EpollEventLoop& loop = **main_loop;
  auto server = args.recover_id >= 0 ? tiercache::UblkServer::Recover(
                                           **device, uint32_t(args.recover_id), args.options)
                                     : tiercache::UblkServer::Start(**device, args.options);
  if (!server.ok()) return Fail(server.status().ToString());
  tiercache::UblkServer& srv = **server;
  PrintReady(srv);
  if (!args.pidfile.empty()) {
    Status written = process.WritePidfile(args.pidfile);
    if (!written.ok()) return Fail(written.ToString());
  }

  Status watching = process.StopOnSignal(loop, [&] { srv.stop([&loop] { loop.stop(); }); });
  if (!watching.ok()) return Fail(watching.ToString());
  loop.run();
  PrintStopped(srv, **device);
  device->reset();  // before the server's queue loops go away (FileDevice keeps per-loop state)
  server->reset();
  process.RemovePidfile();
  return 0;
}
