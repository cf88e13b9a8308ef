#include "daemon/common/heap_trimmer.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>

#include "cachelib/common/logger.h"

namespace tiercache {

size_t HeapTrimmer::FreeHeapBytes() { return mallinfo2().fordblks; }

size_t HeapTrimmer::ResidentBytes() {
  unsigned long size = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
  std::fclose(f);
  return resident * size_t(sysconf(_SC_PAGESIZE));
}

bool HeapTrimmer::check_now() {
  const size_t free_bytes = FreeHeapBytes();
  const size_t resident = ResidentBytes();
  if (free_bytes <= options_.keep_free || resident <= resident_after_trim_ + options_.keep_free) {
    return false;
  }
  malloc_trim(0);
  resident_after_trim_ = ResidentBytes();
  LogDebug("heap_trim", {{"free_bytes", std::to_string(free_bytes)},
                         {"resident_before", std::to_string(resident)},
                         {"resident_after", std::to_string(resident_after_trim_)}});
  return true;
}

}  // namespace tiercache
