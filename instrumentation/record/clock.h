#pragma once
// The one clock every recorded timestamp comes from: CLOCK_MONOTONIC in nanoseconds.
// It is read through the vDSO (no syscall), is shared by all threads of the process and
// can be related to other clocks (CUPTI, other hosts) by paired readings.

#include <cstdint>
#include <ctime>

namespace pipescope::record {

inline int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace pipescope::record
