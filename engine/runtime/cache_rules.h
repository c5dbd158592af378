#pragma once
// What cache() keeps and replays, as tf.data defines it: the first pass that reaches the end
// of its input is kept; every pass after it replays those elements in the same order
// without touching the input. A pass cut short (take, cancel) keeps nothing, so the next
// pass reads the input again. The engine's cache (elements with tensors, passes on any
// thread) and the simulator's (sizes only) both keep one of these.

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace pipescope::engine {

template <class T>
class PassCache {
 public:
  using Kept = std::shared_ptr<const std::vector<T>>;

  // The elements of a complete pass, or null while no pass has completed: a new pass
  // replays these when there are some, else reads its input and records.
  Kept Complete() const {
    std::lock_guard lock(mu_);
    return kept_;
  }

  // What one reading pass has seen so far; Finish() when its input ended.
  class Recording {
   public:
    explicit Recording(PassCache& cache) : cache_(cache) {}
    void Keep(const T& element) { seen_.push_back(element); }
    size_t size() const { return seen_.size(); }
    void Finish() { cache_.Publish(std::move(seen_)); }

   private:
    PassCache& cache_;
    std::vector<T> seen_;
  };

 private:
  // The first complete pass wins; a second one that ran at the same time is the same data.
  void Publish(std::vector<T> elements) {
    std::lock_guard lock(mu_);
    if (!kept_) kept_ = std::make_shared<const std::vector<T>>(std::move(elements));
  }

  mutable std::mutex mu_;
  Kept kept_;
};

// One replaying pass: the kept elements in order.
template <class T>
class CacheReplay {
 public:
  explicit CacheReplay(typename PassCache<T>::Kept kept) : kept_(std::move(kept)) {}
  // The next kept element, or null at the end of the pass.
  const T* Next() { return next_ < kept_->size() ? &(*kept_)[next_++] : nullptr; }

 private:
  typename PassCache<T>::Kept kept_;
  size_t next_ = 0;
};

}  // namespace pipescope::engine
