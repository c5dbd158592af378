#pragma once
// How many elements a parallel map holds, in flight or waiting to be taken. tf.data bounds
// this by num_parallel_calls; a floor lets workers run ahead far enough that hand-offs are
// batched: deep when the function is fast (hand-off cost dominates, and each wake-up of a
// sleeping thread should then cover many elements), shallow when it is slow (depth only
// costs memory there). The engine's parallel map and the simulator's both use it.

#include <algorithm>
#include <cstdint>

namespace pipescope::engine {

inline constexpr int64_t kFastMapFunctionNs = 2'000;

inline int64_t ParallelMapCapacity(int64_t parallelism, double function_ns) {
  return std::max<int64_t>(2 * parallelism, function_ns < kFastMapFunctionNs ? 64 : 16);
}

// How many elements a worker takes from the input at once: about 20 us of the function's
// work (at most 32), so one hand-off covers many cheap elements, and no more than its fair
// share of the room left, so the other workers are not starved.
inline int64_t ParallelMapGroupSize(double function_ns, int64_t capacity, int64_t occupied,
                                    int64_t parallelism) {
  constexpr double kTargetGroupNs = 20'000;
  const auto by_cost =
      static_cast<int64_t>(std::clamp(kTargetGroupNs / std::max(1.0, function_ns), 1.0, 32.0));
  const int64_t fair_share = std::max<int64_t>(1, (capacity - occupied) / parallelism);
  return std::min(by_cost, fair_share);
}

}  // namespace pipescope::engine
