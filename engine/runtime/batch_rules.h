#pragma once
// Which groups of elements a batch hands out, as tf.data defines it: batch_size consecutive
// elements each; the last group may be short, unless drop_remainder, and an empty group is
// never a batch. The engine's batch (which stacks tensors) and the simulator's (which adds
// up sizes) both ask this.

#include <cstdint>
#include <optional>

namespace pipescope::engine {

// Whether a group of `rows` elements is a batch. `input_ended`: the input ended before the
// group reached batch_size.
inline bool IsBatch(int64_t rows, int64_t batch_size, bool input_ended, bool drop_remainder) {
  if (rows == 0) return false;
  if (rows >= batch_size || !input_ended) return true;
  return !drop_remainder;
}

// How many batches `elements` elements make (the rule above, counted): nullopt for a batch
// size below 1.
inline std::optional<int64_t> BatchesOf(int64_t elements, int64_t batch_size, bool drop_remainder) {
  if (batch_size < 1) return std::nullopt;
  return drop_remainder ? elements / batch_size : (elements + batch_size - 1) / batch_size;
}

}  // namespace pipescope::engine
