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

}  // namespace pipescope::engine
