#include "engine/runtime/allocator_tuning.h"

#include <malloc.h>

#include <mutex>

namespace pipescope::engine {

void TuneAllocatorForPipelines() {
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
  });
}

}  // namespace pipescope::engine
