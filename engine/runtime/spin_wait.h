#pragma once
// Brief spinning before a thread sleeps on a condition variable. A hand-off between
// pipeline threads usually completes within a microsecond or two; sleeping and being woken
// costs two futex calls and a reschedule (several microseconds), more than the element.

#include <atomic>
#include <cstdint>

namespace pipescope::engine {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until `counter` differs from `seen` or the budget runs out; true if it changed.
inline bool SpinUntilChanged(const std::atomic<uint64_t>& counter, uint64_t seen,
                             int iterations = 1500) {
  for (int i = 0; i < iterations; ++i) {
    if (counter.load(std::memory_order_acquire) != seen) return true;
    CpuRelax();
  }
  return false;
}

}  // namespace pipescope::engine
