#pragma once
// How many elements a parallel map holds, in flight or waiting to be taken. tf.data bounds
// this by num_parallel_calls; a floor lets workers run ahead far enough that hand-offs are
// batched: deep when the function is fast (hand-off cost dominates, and each wake-up of a
// sleeping thread should then cover many elements), shallow when it is slow (depth only
// costs memory there). The engine's parallel map and the simulator's both use it.
//
// 256 for a fast function (was 64): with the resume room below, it lets a stopped worker
// wait for a whole group's room while the buffer stays well filled. chess_unpack's real
// run took 18% less CPU for the same steps/s (docs/BENCHMARKS.md, "The simulator"). A
// function under 2 us touches a few KiB, so 256 of its results are small.

#include <algorithm>
#include <cstdint>

namespace pipescope::engine {

inline constexpr int64_t kFastMapFunctionNs = 2'000;

inline int64_t ParallelMapCapacity(int64_t parallelism, double function_ns) {
  return std::max<int64_t>(2 * parallelism, function_ns < kFastMapFunctionNs ? 256 : 16);
}

// A group's worth of the function's work: about 20 us (at most 32 elements), so one
// hand-off covers many cheap elements; one element when the function is slow.
inline int64_t ParallelMapGroupByCost(double function_ns) {
  constexpr double kTargetGroupNs = 20'000;
  return static_cast<int64_t>(std::clamp(kTargetGroupNs / std::max(1.0, function_ns), 1.0, 32.0));
}

// The room a worker needs before it takes a group: a group's worth, at most a fair share of
// half the buffer (so the buffer is still half full when workers resume). A worker that
// resumed for any room at all took its fair share of the one group a caller had just
// taken, half of it with two workers: groups shrank at every wake-up to a few elements,
// each costing a wake-up and three locks (chess_unpack: ~10 elements a group; 32 now).
inline int64_t ParallelMapResumeRoom(double function_ns, int64_t capacity, int64_t parallelism) {
  return std::min(ParallelMapGroupByCost(function_ns),
                  std::max<int64_t>(1, capacity / (2 * parallelism)));
}

// How many elements a worker takes from the input at once, with `occupied` of `capacity`
// in use: a group's worth, but no more than its fair share of the room left, so the other
// workers are not starved, and no less than the resume room it waited for.
inline int64_t ParallelMapGroupSize(double function_ns, int64_t capacity, int64_t occupied,
                                    int64_t parallelism) {
  const int64_t room = std::max<int64_t>(1, capacity - occupied);
  const int64_t fair_share =
      std::max(room / parallelism, ParallelMapResumeRoom(function_ns, capacity, parallelism));
  return std::min({ParallelMapGroupByCost(function_ns), fair_share, room});
}

}  // namespace pipescope::engine
