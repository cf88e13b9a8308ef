#include "daemon/ublk/ublk_server.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <future>
#include <string>
#include <utility>

namespace tiercache {

namespace {

using WallClock = std::chrono::steady_clock;

// How long Recover() waits for the kernel to notice that the old server is gone.
constexpr auto kRecoveryWait = std::chrono::seconds(10);
// How long to wait for udev/devtmpfs to create /dev/ublkcN after ADD_DEV.
constexpr auto kCharDeviceWait = std::chrono::seconds(3);
constexpr auto kPollInterval = std::chrono::milliseconds(20);
// Largest discard / write-zeroes request the kernel may send, in sectors (1 GiB).
constexpr uint32_t kMaxDiscardSectors = (1u << 30) >> ublk::kSectorShift;

uint8_t Log2(uint32_t v) {
  uint8_t s = 0;
  while ((1u << s) < v) ++s;
  return s;
}

}  // namespace

std::string UblkServer::FeatureNames(uint64_t flags) {
  static const std::pair<uint64_t, const char*> kNames[] = {
      {ublk::kFeatureZeroCopy, "ZERO_COPY"},
      {ublk::kFeatureCompInTask, "URING_CMD_COMP_IN_TASK"},
      {ublk::kFeatureNeedGetData, "NEED_GET_DATA"},
      {ublk::kFeatureUserRecovery, "USER_RECOVERY"},
      {ublk::kFeatureUserRecoveryReissue, "USER_RECOVERY_REISSUE"},
      {ublk::kFeatureUnprivileged, "UNPRIVILEGED_DEV"},
      {ublk::kFeatureCmdIoctlEncode, "CMD_IOCTL_ENCODE"},
      {ublk::kFeatureUserCopy, "USER_COPY"},
      {ublk::kFeatureZoned, "ZONED"},
      {ublk::kFeatureUserRecoveryFailIo, "USER_RECOVERY_FAIL_IO"},
  };
  std::string out;
  uint64_t known = 0;
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if ((flags & bit) == 0) continue;
    if (!out.empty()) out += '|';
    out += name;
  }
  if ((flags & ~known) != 0) {
    char extra[32];
    std::snprintf(extra, sizeof extra, "0x%llx", static_cast<unsigned long long>(flags & ~known));
    out += out.empty() ? extra : std::string("|") + extra;
  }
  return out.empty() ? "none" : out;
}

UblkServer::UblkServer(Device& device, const UblkOptions& options)
    : device_(device), options_(options) {}

std::string UblkServer::block_device() const {
  return options_.dev_dir + "/ublkb" + std::to_string(info_.dev_id);
}

uint64_t UblkServer::requests_served() const {
  std::lock_guard lock(mu_);
  uint64_t n = served_after_stop_;
  for (const auto& q : queues_) n += q->requests_served();
  return n;
}

std::string UblkServer::command_rings() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& q : queues_) {
    const std::string name = q->ring_name();
    if (name.empty() || out.find(name) != std::string::npos) continue;
    out += out.empty() ? name : "+" + name;
  }
  return out;
}

bool UblkServer::every_queue(bool (UblkQueue::*has)() const) const {
  std::lock_guard lock(mu_);
  return !queues_.empty() &&
         std::all_of(queues_.begin(), queues_.end(), [has](const auto& q) { return (*q.*has)(); });
}

Status UblkServer::open_control() {
  TC_RETURN_IF_ERROR(options_.validate());
  if (device_.block_size() > options_.logical_block_size) {
    return Status::InvalidArgument("ublk: logical block size " +
                                   std::to_string(options_.logical_block_size) +
                                   " is smaller than the block size of " + device_.name() + " (" +
                                   std::to_string(device_.block_size()) + ")");
  }
  if (device_.size() < options_.logical_block_size) {
    return Status::InvalidArgument("ublk: " + device_.name() + " is smaller than one block");
  }
  auto control = UblkControl::Open(options_.control_path);
  if (!control.ok()) return control.status();
  control_ = std::move(control).value();
  auto features = control_->get_features();
  if (!features.ok()) return features.status();
  features_ = *features;
  if ((features_ & ublk::kFeatureCmdIoctlEncode) == 0) {
    return Status::NotSupported(
        "ublk: the kernel does not offer ioctl-encoded commands "
        "(UBLK_F_CMD_IOCTL_ENCODE); offered: " +
        FeatureNames(features_));
  }
  return Status::Ok();
}

Status UblkServer::add_device() {
  uint64_t wanted = ublk::kFeatureCmdIoctlEncode;
  if (options_.user_recovery && (features_ & ublk::kFeatureUserRecovery) != 0) {
    wanted |= ublk::kFeatureUserRecovery;
    if (options_.recovery_reissue) wanted |= ublk::kFeatureUserRecoveryReissue;
  }
  wanted &= features_;  // only ask for what is offered
  const uint64_t max_io = std::min<uint64_t>(options_.max_io_bytes, device_.max_io_bytes());
  info_ = ublksrv_ctrl_dev_info{};
  info_.nr_hw_queues = uint16_t(options_.queues);
  info_.queue_depth = uint16_t(options_.depth);
  info_.max_io_buf_bytes = uint32_t(max_io / 4096 * 4096);
  info_.dev_id = uint32_t(options_.dev_id);  // -1: any
  info_.flags = wanted;
  TC_RETURN_IF_ERROR(control_->add_dev(info_));
  device_added_ = true;
  if ((info_.flags & wanted) != wanted) {
    return Status::NotSupported("ublk: the kernel refused features " +
                                FeatureNames(wanted & ~info_.flags));
  }
  return Status::Ok();
}

Status UblkServer::set_parameters() {
  const uint32_t lbs = options_.logical_block_size;
  ublk_params p{};
  p.types = UBLK_PARAM_TYPE_BASIC | (options_.discard ? UBLK_PARAM_TYPE_DISCARD : 0);
  p.basic.attrs = options_.write_cache ? (UBLK_ATTR_VOLATILE_CACHE | UBLK_ATTR_FUA) : 0;
  p.basic.logical_bs_shift = Log2(lbs);
  p.basic.physical_bs_shift = std::max<uint8_t>(p.basic.logical_bs_shift, 12);
  p.basic.io_min_shift = p.basic.logical_bs_shift;
  p.basic.io_opt_shift = p.basic.physical_bs_shift;
  p.basic.max_sectors = info_.max_io_buf_bytes >> ublk::kSectorShift;
  p.basic.dev_sectors = (device_.size() / lbs * lbs) >> ublk::kSectorShift;
  if (options_.discard) {
    p.discard.discard_granularity = lbs;
    p.discard.max_discard_sectors = kMaxDiscardSectors;
    p.discard.max_write_zeroes_sectors = kMaxDiscardSectors;
    p.discard.max_discard_segments = 1;
  }
  return control_->set_params(info_.dev_id, p);
}

Status UblkServer::open_char_device() {
  const std::string path = options_.dev_dir + "/ublkc" + std::to_string(info_.dev_id);
  const auto deadline = WallClock::now() + kCharDeviceWait;
  for (;;) {
    char_fd_ = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (char_fd_ >= 0) return Status::Ok();
    const int err = errno;
    if (err == EBUSY) return Status::Busy("ublk: " + path + " is open by another server");
    if (err != ENOENT || WallClock::now() > deadline) return Status::FromErrno(err, "open " + path);
    std::this_thread::sleep_for(kPollInterval);
  }
}

Status UblkServer::start_queues(std::vector<EventLoop*> queue_loops) {
  const uint32_t n = info_.nr_hw_queues;
  if (!queue_loops.empty() && queue_loops.size() != n) {
    return Status::InvalidArgument("ublk: " + std::to_string(queue_loops.size()) +
                                   " loops passed for " + std::to_string(n) + " queues");
  }
  for (uint32_t q = queue_loops.size(); q < n; ++q) {
    auto t = LoopThread::Start("ublk-queue");
    if (!t.ok()) return t.status();
    queue_loops.push_back(&(*t)->loop());
    owned_loops_.push_back(std::move(t).value());
  }
  for (uint32_t q = 0; q < n; ++q) {
    UblkQueue::Config config{.char_fd = char_fd_,
                             .queue_id = uint16_t(q),
                             .depth = info_.queue_depth,
                             .buffer_bytes = info_.max_io_buf_bytes,
                             .own_ring = options_.OwnRingWanted()};
    auto queue = UblkQueue::Create(device_, *queue_loops[q], config);
    if (!queue.ok()) return queue.status();
    {
      std::lock_guard lock(mu_);
      queues_.push_back(std::move(queue).value());
    }
    TC_RETURN_IF_ERROR(queues_.back()->start());
  }
  return Status::Ok();
}

// Waits until every queue has committed its last result and ended its commands, then unmaps.
void UblkServer::stop_queues(bool kernel_stopped) {
  std::vector<std::future<void>> finished;
  for (auto& q : queues_) {
    auto done = std::make_shared<std::promise<void>>();
    finished.push_back(done->get_future());
    q->stop(kernel_stopped, [done] { done->set_value(); });
  }
  for (auto& f : finished) f.wait();
  std::lock_guard lock(mu_);
  for (const auto& q : queues_) served_after_stop_ += q->requests_served();
  queues_.clear();
}

// No STOP_DEV here (a recoverable device must stay): the queues do not wait for the fetches.
void UblkServer::undo_start() {
  stop_queues(false);
  if (char_fd_ >= 0) {
    close(char_fd_);
    char_fd_ = -1;
  }
  if (device_added_ && !recovering_) (void)control_->del_dev(info_.dev_id);
  std::lock_guard lock(mu_);
  stop_requested_ = true;
  stopped_ = true;
}

Result<std::unique_ptr<UblkServer>> UblkServer::Start(Device& device, const UblkOptions& options,
                                                      std::vector<EventLoop*> queue_loops) {
  std::unique_ptr<UblkServer> server(new UblkServer(device, options));
  Status s = server->open_control();
  if (s.ok()) s = server->add_device();
  if (s.ok()) s = server->set_parameters();
  if (s.ok()) s = server->open_char_device();
  if (s.ok()) s = server->start_queues(std::move(queue_loops));
  if (s.ok()) s = server->control_->start_dev(server->info_.dev_id, getpid());
  if (!s.ok()) {
    server->undo_start();
    return s;
  }
  return server;
}

Result<std::unique_ptr<UblkServer>> UblkServer::Recover(Device& device, uint32_t dev_id,
                                                        const UblkOptions& options,
                                                        std::vector<EventLoop*> queue_loops) {
  std::unique_ptr<UblkServer> server(new UblkServer(device, options));
  server->recovering_ = true;
  Status s = server->open_control();
  if (s.ok()) s = server->check_recoverable(dev_id);
  if (s.ok()) s = server->start_recovery();
  if (s.ok()) s = server->open_char_device();
  if (s.ok()) s = server->start_queues(std::move(queue_loops));
  if (s.ok()) s = server->control_->end_user_recovery(dev_id, getpid());
  if (!s.ok()) {
    server->undo_start();
    return s;
  }
  return server;
}

// Adopts the geometry the device was created with; the Device must match its size.
Status UblkServer::check_recoverable(uint32_t dev_id) {
  auto info = control_->get_dev_info(dev_id);
  if (!info.ok()) return info.status();
  info_ = *info;
  if ((info_.flags & ublk::kFeatureUserRecovery) == 0) {
    return Status::NotSupported("ublk: device " + std::to_string(dev_id) +
                                " was created without USER_RECOVERY; it cannot be recovered");
  }
  auto params = control_->get_params(dev_id);
  if (!params.ok()) return params.status();
  const uint32_t lbs = 1u << params->basic.logical_bs_shift;
  const uint64_t bytes = params->basic.dev_sectors << ublk::kSectorShift;
  if (bytes != device_.size() / lbs * lbs) {
    return Status::InvalidArgument("ublk: device " + std::to_string(dev_id) + " has " +
                                   std::to_string(bytes) + " bytes but " + device_.name() +
                                   " has " + std::to_string(device_.size()));
  }
  if (device_.block_size() > lbs) {
    return Status::InvalidArgument("ublk: device " + std::to_string(dev_id) +
                                   " has a smaller logical block than " + device_.name());
  }
  return Status::Ok();
}

// The kernel answers Busy until it has noticed that the old server is gone and has quiesced
// the device: retry for a while.
Status UblkServer::start_recovery() {
  const auto deadline = WallClock::now() + kRecoveryWait;
  for (;;) {
    Status s = control_->start_user_recovery(info_.dev_id);
    if (s.ok() || s.code() != Status::Code::kBusy) return s;
    if (WallClock::now() > deadline) {
      return Status::Busy("ublk: device " + std::to_string(info_.dev_id) +
                          " is still served (pid " + std::to_string(info_.ublksrv_pid) +
                          "?): " + s.message());
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

void UblkServer::stop(std::function<void()> done) {
  {
    std::lock_guard lock(mu_);
    if (stop_requested_) return;
    stop_requested_ = true;
  }
  EventLoop* caller = EventLoop::current();
  stopper_ = std::thread([this, caller, done = std::move(done)]() mutable {
    run_stop();
    if (done) {
      if (caller != nullptr) {
        caller->post(std::move(done));
      } else {
        done();
      }
    }
    std::lock_guard lock(mu_);
    stopped_ = true;
    cv_.notify_all();
  });
}

void UblkServer::run_stop() {
  Status s = control_->stop_dev(info_.dev_id);
  if (!s.ok()) std::fprintf(stderr, "ublk: %s\n", s.ToString().c_str());
  stop_queues(s.ok());
  close(char_fd_);
  char_fd_ = -1;
  s = control_->del_dev(info_.dev_id);
  if (!s.ok()) std::fprintf(stderr, "ublk: %s\n", s.ToString().c_str());
}

UblkServer::~UblkServer() {
  stop(nullptr);
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return stopped_; });
  }
  if (stopper_.joinable()) stopper_.join();
  owned_loops_.clear();
}

}  // namespace tiercache
