#pragma once
// The counting of repeat, take, skip and shard, as tf.data defines it. The engine's ops and
// the simulator's keep one of these each and ask it; only how they pull an element differs.

#include <cstdint>

namespace pipescope::engine {

// repeat(count): -1 forever, 0 nothing, n passes. A pass that produced nothing ends an
// endless repeat (tf.data does the same rather than spin).
class RepeatPasses {
 public:
  explicit RepeatPasses(int64_t count) : count_(count) {}
  // Whether to begin another pass over the input.
  bool Another() const {
    if (done_ > 0 && !last_pass_produced_) return false;
    return count_ < 0 || done_ < count_;
  }
  void Produced() { produced_in_pass_ = true; }
  void PassEnded() {
    ++done_;
    last_pass_produced_ = produced_in_pass_;
    produced_in_pass_ = false;
  }

 private:
  int64_t count_;
  int64_t done_ = 0;
  bool produced_in_pass_ = false;
  bool last_pass_produced_ = false;
};

// take(count) and skip(count): how many elements are left to take or to skip; -1 all.
class Countdown {
 public:
  explicit Countdown(int64_t count) : left_(count) {}
  bool Done() const { return left_ == 0; }
  void Count() {
    if (left_ > 0) --left_;
  }

 private:
  int64_t left_;
};

// Dataset.from_tensors(x).repeat(x) as a take count: x copies, endless for a negative x
// (repeat(-1)).
inline Countdown CopiesOfValue(int64_t x) { return Countdown(x < 0 ? -1 : x); }

// The elements a per-element from_element dataset gives for the element `x`: x with
// repeat_by_value, else its `slices` (from_tensor_slices of a made tensor's rows), else one.
inline Countdown ElementsFromElement(bool repeat_by_value, int64_t slices, int64_t x) {
  if (repeat_by_value) return CopiesOfValue(x);
  return Countdown(slices > 0 ? slices : 1);
}

// shard(num_shards, index): keeps the input elements whose position is index modulo
// num_shards.
class ShardSelector {
 public:
  ShardSelector(int64_t num_shards, int64_t index) : num_shards_(num_shards), index_(index) {}
  // Whether the next input element belongs to this shard.
  bool KeepNext() { return position_++ % num_shards_ == index_; }

 private:
  int64_t num_shards_, index_;
  int64_t position_ = 0;
};

}  // namespace pipescope::engine
