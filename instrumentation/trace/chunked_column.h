#pragma once
// A column of a track: an append-only array stored in chunks of 16 Ki values, so growing
// it never copies what is already there (a live recording appends millions of events a
// second; doubling a flat vector would copy and fault in pages the whole time). The first
// chunk grows by doubling, so a small track stays small; the others are allocated whole.
//
// Memory is faulted in ahead of the writes, 64 KiB at a time (record::PopulatePagesForWrite):
// a trace is built in fresh memory, and on a virtual machine a page fault per 4 KiB page
// cost more than appending the events that fill it (docs/BENCHMARKS.md, "The simulator").

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "instrumentation/record/populate_pages.h"

namespace pipescope::trace {

template <typename T>
class ChunkedColumn {
  static_assert(std::is_trivially_copyable_v<T>, "values are moved by realloc");

 public:
  static constexpr size_t kShift = 14;
  static constexpr size_t kChunk = size_t{1} << kShift;

  ChunkedColumn() = default;
  ChunkedColumn(ChunkedColumn&&) noexcept = default;
  ChunkedColumn& operator=(ChunkedColumn&&) noexcept = default;
  // A copy holds the values only (its last chunk has no room to spare): a snapshot of a
  // growing column, a memcpy per chunk.
  ChunkedColumn(const ChunkedColumn& other) { *this = other; }
  ChunkedColumn& operator=(const ChunkedColumn& other) {
    if (this == &other) return *this;
    clear();
    if (other.size_ == 0) return *this;
    chunks_.reserve(other.chunks_.size());
    for (size_t base = 0; base < other.size_; base += kChunk) {
      const size_t held = std::min(kChunk, other.size_ - base);
      chunks_.push_back(NewChunk(held));
      std::memcpy(chunks_.back().get(), other.chunks_[base >> kShift].get(), held * sizeof(T));
      capacity_ = base + held;
    }
    last_ = chunks_.back().get();
    size_ = writable_ = capacity_;
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T operator[](size_t i) const { return chunks_[i >> kShift][i & (kChunk - 1)]; }
  // The values from i on, contiguous up to the end of i's chunk (a multiple of any power
  // of two up to kChunk from i rounded down to it): for scanning a block of values at once.
  const T* values_from(size_t i) const { return &chunks_[i >> kShift][i & (kChunk - 1)]; }
  T front() const { return chunks_.front()[0]; }
  T back() const { return (*this)[size_ - 1]; }

  void push_back(T v) {
    if (size_ == writable_) MakeWritable();
    last_[size_ & (kChunk - 1)] = v;
    ++size_;
  }
  // Appends `n` copies of v.
  void Fill(size_t n, T v) {
    for (size_t k = 0; k < n; ++k) push_back(v);
  }
  void clear() {
    chunks_.clear();
    chunks_.shrink_to_fit();
    size_ = capacity_ = writable_ = 0;
    last_ = nullptr;
  }
  // Frees the unused end of the last chunk (a finished trace keeps what it holds).
  void ShrinkToFit() {
    if (capacity_ > size_) Resize(LastChunkCapacity() - (capacity_ - size_));
    chunks_.shrink_to_fit();
  }
  size_t memory_bytes() const {
    return chunks_.capacity() * sizeof(chunks_[0]) + capacity_ * sizeof(T);
  }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  using Chunk = std::unique_ptr<T[], Free>;  // from malloc, for realloc

  static constexpr size_t kFirstCapacity = 16;
  static constexpr size_t kPopulateBytes = 64 * 1024;
  static constexpr size_t kPopulateValues = std::max<size_t>(1, kPopulateBytes / sizeof(T));

  size_t LastChunkCapacity() const { return capacity_ - (chunks_.size() - 1) * kChunk; }

  // Room for the next value: a bigger first chunk or a new chunk when full, and the pages
  // ahead of size_ faulted in.
  void MakeWritable() {
    if (size_ < capacity_) {
      Populate(capacity_ - size_);
    } else if (chunks_.empty()) {
      chunks_.emplace_back();
      Resize(kFirstCapacity);
    } else if (LastChunkCapacity() < kChunk) {
      // Only the first chunk grows by doubling; a later one was shrunk and is refilled.
      Resize(chunks_.size() == 1 ? std::min(2 * capacity_, kChunk) : kChunk);
    } else {
      chunks_.push_back(NewChunk(kChunk));
      last_ = chunks_.back().get();
      capacity_ += kChunk;
      Populate(kChunk);
    }
  }

  // Faults in up to kPopulateValues from size_ on, at most `left` values.
  void Populate(size_t left) {
    const size_t values = std::min(left, kPopulateValues);
    record::PopulatePagesForWrite(last_ + (size_ & (kChunk - 1)), values * sizeof(T));
    writable_ = size_ + values;
  }

  // Gives the last chunk room for `values`, keeping what it holds. Shrinking reallocs in
  // place (a finished trace's columns: a copy of their last chunks cost a tenth of building
  // them). Growing copies into a new block whose pages are faulted in first, up to
  // kPopulateValues past what it holds: realloc's copy into fresh pages took a page fault per
  // 4 KiB, two thirds of the time the sink thread of a simulation spent in the kernel.
  void Resize(size_t values) {
    const size_t base = (chunks_.size() - 1) * kChunk;
    const size_t held = size_ - base;
    if (values <= held) {
      void* shrunk = std::realloc(chunks_.back().get(), std::max<size_t>(1, values) * sizeof(T));
      if (shrunk == nullptr) throw std::bad_alloc();
      (void)chunks_.back().release();  // realloc took it
      chunks_.back().reset(static_cast<T*>(shrunk));
      last_ = chunks_.back().get();
      capacity_ = writable_ = base + values;
      return;
    }
    Chunk grown = NewChunk(values);
    const size_t ready = std::min(values, held + kPopulateValues);
    record::PopulatePagesForWrite(grown.get(), ready * sizeof(T));
    if (held > 0) std::memcpy(grown.get(), chunks_.back().get(), held * sizeof(T));
    chunks_.back() = std::move(grown);
    last_ = chunks_.back().get();
    capacity_ = base + values;
    writable_ = base + ready;
  }
  static Chunk NewChunk(size_t values) {
    void* p = std::malloc(values * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return Chunk(static_cast<T*>(p));
  }

  std::vector<Chunk> chunks_;
  T* last_ = nullptr;  // chunks_.back()'s values, where push_back writes
  size_t size_ = 0;
  size_t capacity_ = 0;  // values the chunks can hold
  size_t writable_ = 0;  // values up to which the pages are faulted in (<= capacity_)
};

}  // namespace pipescope::trace
