#pragma once
// A column of a track: an append-only array stored in chunks of 16 Ki values, so growing
// it never copies what is already there (a live recording appends millions of events a
// second; doubling a flat vector would copy and fault in pages the whole time). The first
// chunk grows like a vector, so a small track stays small; the others are allocated whole.

#include <cstddef>
#include <vector>

namespace pipescope::trace {

template <typename T>
class ChunkedColumn {
 public:
  static constexpr size_t kShift = 14;
  static constexpr size_t kChunk = size_t{1} << kShift;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T operator[](size_t i) const { return chunks_[i >> kShift][i & (kChunk - 1)]; }
  T front() const { return chunks_.front().front(); }
  T back() const { return chunks_.back().back(); }

  void push_back(T v) {
    if (chunks_.empty() || chunks_.back().size() == kChunk) {
      chunks_.emplace_back();
      if (chunks_.size() > 1) chunks_.back().reserve(kChunk);
    }
    chunks_.back().push_back(v);
    ++size_;
  }
  // Appends `n` copies of v.
  void Fill(size_t n, T v) {
    for (size_t k = 0; k < n; ++k) push_back(v);
  }
  void clear() {
    chunks_.clear();
    chunks_.shrink_to_fit();
    size_ = 0;
  }
  void ShrinkToFit() {
    if (!chunks_.empty()) chunks_.back().shrink_to_fit();
    chunks_.shrink_to_fit();
  }
  size_t memory_bytes() const {
    size_t n = chunks_.capacity() * sizeof(std::vector<T>);
    for (const auto& c : chunks_) n += c.capacity() * sizeof(T);
    return n;
  }

 private:
  std::vector<std::vector<T>> chunks_;
  size_t size_ = 0;
};

}  // namespace pipescope::trace
