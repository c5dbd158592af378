#pragma once
// The clocks every recorded timestamp comes from.
//
// NowNs() is CLOCK_MONOTONIC in nanoseconds, read through the vDSO (no syscall): the
// reference clock, shared by all threads, relatable to other clocks (CUPTI, other hosts)
// by paired readings.
//
// Ticks() is what the hot path reads: the CPU's time-stamp counter where it is invariant
// (constant_tsc and nonstop_tsc: it ticks at one rate in every power state and is
// synchronised across cores), else NowNs() itself. On the 2-vCPU machine of
// docs/BENCHMARKS.md rdtsc costs 11 ns and clock_gettime 26 ns, and a span needs two
// readings, so the counter halves the cost of every recorded event. Ticks become
// nanoseconds off the hot path, in the collector, through TickCalibration.

#include <cstdint>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define PIPESCOPE_HAVE_TSC 1
#endif

namespace pipescope::record {

inline int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

namespace internal {
// Set once, before any recorder starts, by TickCalibration::Get().
inline bool g_ticks_are_tsc = false;
}  // namespace internal

inline uint64_t Ticks() {
#ifdef PIPESCOPE_HAVE_TSC
  if (internal::g_ticks_are_tsc) return __rdtsc();
#endif
  return static_cast<uint64_t>(NowNs());
}

// The relation between Ticks() and NowNs(), measured once per process.
struct TickCalibration {
  bool tsc = false;        // false: ticks are NowNs() nanoseconds
  uint64_t ref_ticks = 0;  // a paired reading...
  int64_t ref_ns = 0;      // ...of both clocks
  double ns_per_tick = 1.0;

  int64_t ToNs(uint64_t ticks) const {
    const auto delta = static_cast<double>(static_cast<int64_t>(ticks - ref_ticks));
    return ref_ns + static_cast<int64_t>(delta * ns_per_tick);
  }
  // A duration in ticks, as nanoseconds.
  int64_t DurationNs(uint64_t ticks) const {
    return static_cast<int64_t>(static_cast<double>(ticks) * ns_per_tick);
  }
  // A duration in nanoseconds, as ticks.
  uint64_t TicksFor(int64_t ns) const {
    return static_cast<uint64_t>(static_cast<double>(ns) / ns_per_tick);
  }

  // The process-wide calibration: the first call measures for about 20 ms.
  static const TickCalibration& Get();
};

}  // namespace pipescope::record
