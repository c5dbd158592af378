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
