#pragma once
// Whose turn it is in an interleave, as tf.data defines it: block_length elements from one
// cycle slot, then the next slot; a slot whose sub-dataset ended hands its turn on at once.
// The engine's interleave and the simulator's both keep one cursor and ask it; only how
// they pull an element (threads or virtual time) differs.

#include <cstddef>
#include <cstdint>

namespace pipescope::engine {

class InterleaveCursor {
 public:
  // The slot whose turn it is.
  size_t slot() const { return slot_; }

  // Back to the first slot when a cycle that shrank (a live cycle_length change) left the
  // turn outside it.
  void Wrap(size_t cycle) {
    if (slot_ >= cycle) {
      slot_ = 0;
      taken_in_block_ = 0;
    }
  }

  // The turn passes to the next slot, with a fresh block (after a slot ended, or when an
  // empty slot cannot be opened).
  void NextSlot(size_t cycle) {
    taken_in_block_ = 0;
    slot_ = cycle == 0 ? 0 : (slot_ + 1) % cycle;
  }

  // An element was taken in turn: the turn moves on once the block is complete.
  void Took(int64_t block_length, size_t cycle) {
    if (++taken_in_block_ >= block_length) NextSlot(cycle);
  }

 private:
  size_t slot_ = 0;
  int64_t taken_in_block_ = 0;
};

}  // namespace pipescope::engine

namespace pipescope::engine {

// How far a parallel interleave reads ahead, as tf.data's parallel interleave
// (parallel_interleave_dataset_op.cc) sets it when its arguments are left to AUTOTUNE, which
// Dataset.interleave always does:
// - every cycle_length input is opened at the first call and read by up to
//   num_parallel_calls workers at once;
// - the next 2 × cycle_length inputs (prefetch_input_elements, kDefaultCyclePrefetchFactor)
//   are opened ahead and read ahead by workers of their own, so an input that ends is
//   replaced by one already open, its first results waiting;
// - each input, in the cycle or ahead of it, buffers up to 2 × block_length + 1 results
//   (buffer_output_elements, kDefaultPerIteratorPrefetchFactor).
// Inputs are pulled one at a time and take their place in the cycle in the order pulled:
// an input that ends is replaced by the first one opened ahead, on its turn, which is the
// order a sequential interleave opens them in. Both clocks read these numbers here.
struct InterleaveReadAhead {
  static int64_t InputsOpenedAhead(int64_t cycle_length) { return 2 * cycle_length; }
  static int64_t ResultsPerInput(int64_t block_length) { return 2 * block_length + 1; }
  // tf.data starts one thread per input opened ahead; a cap keeps a cycle of hundreds from
  // starting hundreds of threads (they read ahead only what the buffers above hold).
  static constexpr int64_t kMaxAheadReaders = 32;
  static int64_t AheadReaders(int64_t cycle_length) {
    const int64_t n = InputsOpenedAhead(cycle_length);
    return n < kMaxAheadReaders ? n : kMaxAheadReaders;
  }
};

}  // namespace pipescope::engine
