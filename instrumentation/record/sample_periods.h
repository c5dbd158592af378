#pragma once
// How often a recording's collector wakes and samples. The simulator samples CPU time on
// the same period, so a simulated trace reads like a recorded one.
//
// The collector wakes every 50 ms, or sooner when a ring is half full (event_ring.h). On the
// 2-core machine of docs/BENCHMARKS.md its wake-ups, not its events, were most of what
// recording cost: at 200 a second (5 ms) it took 2.2% of cpu_bound's throughput.
//
// Buffer levels are not sampled on a period: an op records its level when it changes, at
// most once per kLevelMinIntervalNs, and the collector records, as it wakes, a level that
// changed since without being recorded. A level series is a step function: each point
// holds until the next (trace/sampled_series.h).

#include <cstdint>

namespace pipescope::record {

inline constexpr int64_t kCollectorPeriodNs = 50'000'000;
// Each thread's CPU time, as the collector wakes: each sample is the CPU used since the
// thread's previous one.
inline constexpr int64_t kCpuSamplePeriodNs = kCollectorPeriodNs;
// At most 1,000 level points a second per op: finer than a timeline shows, and few next to
// the op's own events.
inline constexpr int64_t kLevelMinIntervalNs = 1'000'000;

}  // namespace pipescope::record
