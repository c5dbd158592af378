#pragma once
// Which groups of elements a batch hands out, as tf.data defines it: batch_size consecutive
// elements each; the last group may be short, unless drop_remainder, and an empty group is
// never a batch. The engine's batch (which stacks tensors) and the simulator's (which adds
// up sizes) both ask this.

#include <cstdint>

namespace pipescope::engine {

// Whether a group of `rows` elements is a batch. `input_ended`: the input ended before the
// group reached batch_size.
inline bool IsBatch(int64_t rows, int64_t batch_size, bool input_ended, bool drop_remainder) {
  if (rows == 0) return false;
  if (rows >= batch_size || !input_ended) return true;
  return !drop_remainder;
}

}  // namespace pipescope::engine
