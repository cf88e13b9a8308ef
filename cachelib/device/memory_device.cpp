#include "cachelib/device/memory_device.h"

#include <algorithm>
#include <cstring>

namespace tiercache {

MemoryDevice::MemoryDevice(std::string name, uint64_t size, uint32_t block_size)
    : Device(std::move(name), size, block_size) {}

void MemoryDevice::read_now(uint64_t offset, std::span<std::byte> out) const {
  std::lock_guard lock(mu_);
  uint64_t done = 0;
  while (done < out.size()) {
    uint64_t pos = offset + done;
    uint64_t in_chunk = pos % kChunk;
    uint64_t n = std::min<uint64_t>(kChunk - in_chunk, out.size() - done);
    auto it = chunks_.find(pos / kChunk);
    if (it == chunks_.end()) {
      std::memset(out.data() + done, 0, n);
    } else {
      std::memcpy(out.data() + done, it->second.get() + in_chunk, n);
    }
    done += n;
  }
}

void MemoryDevice::write_now(uint64_t offset, std::span<const std::byte> data) {
  std::lock_guard lock(mu_);
  uint64_t done = 0;
  while (done < data.size()) {
    uint64_t pos = offset + done;
    uint64_t in_chunk = pos % kChunk;
    uint64_t n = std::min<uint64_t>(kChunk - in_chunk, data.size() - done);
    auto& chunk = chunks_[pos / kChunk];
    if (!chunk) chunk.reset(new std::byte[kChunk]());
    std::memcpy(chunk.get() + in_chunk, data.data() + done, n);
    done += n;
  }
}

void MemoryDevice::zero_now(uint64_t offset, uint64_t length) {
  std::lock_guard lock(mu_);
  uint64_t done = 0;
  while (done < length) {
    uint64_t pos = offset + done;
    uint64_t in_chunk = pos % kChunk;
    uint64_t n = std::min<uint64_t>(kChunk - in_chunk, length - done);
    auto it = chunks_.find(pos / kChunk);
    if (it != chunks_.end()) {
      if (n == kChunk) {
        chunks_.erase(it);
      } else {
        std::memset(it->second.get() + in_chunk, 0, n);
      }
    }
    done += n;
  }
}

uint64_t MemoryDevice::memory_bytes() const {
  std::lock_guard lock(mu_);
  return chunks_.size() * kChunk;
}

void MemoryDevice::read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) {
  read_now(offset, buf);
  complete_later(std::move(cb), Status::Ok());
}

void MemoryDevice::write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags,
                              IoCallback cb) {
  write_now(offset, buf);
  complete_later(std::move(cb), Status::Ok());
}

void MemoryDevice::flush_impl(IoCallback cb) { complete_later(std::move(cb), Status::Ok()); }

void MemoryDevice::discard_impl(uint64_t offset, uint64_t length, IoCallback cb) {
  zero_now(offset, length);
  complete_later(std::move(cb), Status::Ok());
}

void MemoryDevice::write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags,
                                     IoCallback cb) {
  zero_now(offset, length);
  complete_later(std::move(cb), Status::Ok());
}

}  // namespace tiercache

namespace tiercache {

MemoryDevice::Snapshot MemoryDevice::snapshot() const {
  std::lock_guard lock(mu_);
  Snapshot snap;
  for (const auto& [index, chunk] : chunks_) {
    snap.emplace(index, std::make_shared<const std::vector<std::byte>>(chunk.get(),
                                                                         chunk.get() + kChunk));
  }
  return snap;
}

void MemoryDevice::restore(const Snapshot& snap) {
  std::lock_guard lock(mu_);
  chunks_.clear();
  for (const auto& [index, data] : snap) {
    auto& chunk = chunks_[index];
    chunk.reset(new std::byte[kChunk]);
    std::copy(data->begin(), data->end(), chunk.get());
  }
}

}  // namespace tiercache
