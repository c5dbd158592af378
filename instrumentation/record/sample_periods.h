#pragma once
// How often a recording samples its counters. The simulator samples on the same periods,
// so a simulated trace reads like a recorded one.
//
// Buffer levels every 5 ms: 200 points a second per buffered op is more than a timeline
// can show, and on the 2-core machine of docs/BENCHMARKS.md the collector, which drains
// the rings as it wakes for the sampler, took 3.1% of a core at 1 ms against 1.5% at 5 ms
// (overhead.pbtxt) from the pipeline it measures.

#include <cstdint>

namespace pipescope::record {

inline constexpr int64_t kBufferSamplePeriodNs = 5'000'000;
inline constexpr int64_t kCpuSamplePeriodNs = 10'000'000;

}  // namespace pipescope::record
