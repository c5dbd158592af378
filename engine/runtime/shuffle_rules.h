#pragma once
// Which element a shuffle hands out next and in which order list_files gives its files:
// the engine's ops and the simulator's both draw through these, so for the same seed they
// produce the same order whatever clock runs them.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <utility>
#include <vector>

namespace pipescope::engine {

// The seed of one pass over the input: the op's seed itself when passes repeat their order,
// else mixed with the pass number (splitmix64's finaliser, so neighbouring passes differ in
// every bit).
inline uint64_t ShufflePassSeed(uint64_t seed, uint64_t pass, bool reshuffle_each_pass) {
  if (!reshuffle_each_pass) return seed;
  uint64_t z = seed + (pass + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform picks among the buffered elements (tf.data's shuffle: hand out a random buffered
// element, put the next input element in its place).
class ShufflePick {
 public:
  explicit ShufflePick(uint64_t pass_seed) : rng_(pass_seed) {}

  // An index in [0, buffered); multiply-shift maps a 32-bit draw onto it without a division.
  size_t Next(size_t buffered) {
    return static_cast<size_t>(((rng_() >> 32) * static_cast<uint64_t>(buffered)) >> 32);
  }

 private:
  std::mt19937_64 rng_;
};

// tf.data's shuffle buffer. A shuffle alone holds one epoch. A shuffle that makes its
// input's passes itself (a reshuffling shuffle followed by repeat, which tf.data fuses by
// default: shuffle_and_repeat_fusion) keeps filling across an epoch's end: the next epoch's
// elements go in a slice of their own, and picks come from the oldest slice only, so every
// epoch stays whole and no epoch waits for a fresh fill.
template <class T>
class ShuffleBuffer {
 public:
  // tf.data stops a fill once the buffer spans more than this many epochs (its memory bound
  // for an input smaller than the buffer), checked after each element as it does: each
  // request still puts one element in.
  static constexpr size_t kMaxEpochs = 3;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Whether the fill goes on (besides the buffer size, which the caller checks).
  bool TakesMore() const { return epochs_.size() <= kMaxEpochs; }
  // The elements that come next belong to the next epoch.
  void StartEpoch() { epochs_.emplace_back(); }
  void Add(T element) {
    epochs_.back().push_back(std::move(element));
    ++size_;
  }
  // A uniformly chosen element of the oldest epoch held; the buffer must not be empty.
  T Take(ShufflePick& pick) {
    while (epochs_.front().empty()) epochs_.pop_front();
    std::vector<T>& oldest = epochs_.front();
    const size_t i = pick.Next(oldest.size());
    T out = std::move(oldest[i]);
    if (i + 1 != oldest.size()) oldest[i] = std::move(oldest.back());
    oldest.pop_back();
    --size_;
    return out;
  }

 private:
  std::deque<std::vector<T>> epochs_ = std::deque<std::vector<T>>(1);
  size_t size_ = 0;
};

// Fisher-Yates with the same picks: list_files' order for one pass.
template <class T>
void ShuffleInPlace(std::vector<T>& items, uint64_t pass_seed) {
  ShufflePick pick(pass_seed);
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[pick.Next(i)]);
}

}  // namespace pipescope::engine
