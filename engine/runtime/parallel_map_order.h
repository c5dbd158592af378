#pragma once
// In which order a parallel map (or any op with num_parallel_calls and `deterministic`)
// hands out its finished elements, as tf.data defines it: in input order, waiting for the
// oldest unfinished one, when deterministic; otherwise whatever has finished, oldest first,
// passing over those still running. The engine's parallel map and the simulator's walk
// their in-flight elements oldest first and ask this at each one.

namespace pipescope::engine {

enum class HandOut {
  kTake,  // finished: hand it out now
  kSkip,  // still running, and order need not be kept: look at the next one
  kStop,  // still running, and order is kept: nothing after it may go first
};

inline HandOut HandOutInFlight(bool finished, bool deterministic) {
  if (finished) return HandOut::kTake;
  return deterministic ? HandOut::kStop : HandOut::kSkip;
}

}  // namespace pipescope::engine
