#include "daemon/tiercached/device_stack.h"

#include "cachelib/device/models/model_profiles.h"
#include "cachelib/device/file_device.h"

namespace tiercache {

Result<ModelProfile> FindModelProfile(const std::string& model, const std::string& models_file) {
  auto profiles = models_file.empty() ? ModelProfiles::Builtin() : ModelProfiles::Load(models_file);
  if (!profiles.ok()) return profiles.status();
  return profiles->find(model);
}

DeviceStack::DeviceStack() = default;
DeviceStack::~DeviceStack() {
  model_.reset();  // the model wraps the file: it goes first
  file_.reset();
}

Status DeviceStack::open(const std::string& path, bool buffered, const std::string& model,
                         const std::string& models_file, EventLoop&, IoBackend io) {
  FileDeviceOptions options;
  options.buffered = buffered;
  options.backend = io;
  auto file = FileDevice::Open(path, options);
  if (!file.ok()) return file.status();
  file_ = std::move(file).value();
  top_ = file_.get();
  if (model.empty()) return Status::Ok();
  auto profile = FindModelProfile(model, models_file);
  if (!profile.ok()) return profile.status();
  auto wrapped = MakeModelDevice(*profile, *file_);
  if (!wrapped.ok()) return wrapped.status();
  model_ = std::move(wrapped).value();
  top_ = model_.get();
  return Status::Ok();
}

}  // namespace tiercache
