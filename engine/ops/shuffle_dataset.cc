// Dataset.shuffle(buffer_size, seed, reshuffle_each_iteration): fills a buffer, then
// returns a uniformly chosen buffered element and refills its slot (tf.data's algorithm).
// The first element costs a full buffer fill: the price of randomness the lessons show.
// buffer_size is live: growing fills more, shrinking stops refilling until below.
#include <random>
#include <vector>

#include "engine/ops/ops.h"

namespace pipescope::engine {
namespace {

class ShuffleDataset : public UnaryDataset {
 public:
  ShuffleDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size, uint64_t seed,
                 bool reshuffle)
      : UnaryDataset(std::move(stats), std::move(input)), buffer_size_(std::move(buffer_size)),
        seed_(seed != 0 ? seed : std::random_device{}()), reshuffle_(reshuffle) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return MakeIteratorOver<It>(*this, args);
  }

 private:
  uint64_t NextIterationSeed() const {
    const uint64_t epoch = reshuffle_ ? epoch_.fetch_add(1, std::memory_order_relaxed) : 0;
    return seed_ + epoch * 0x9E3779B97F4A7C15ull;
  }

  class It : public UnaryIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in, const ShuffleDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d), rng_(d.NextIterationSeed()) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      const auto target = static_cast<size_t>(d_.buffer_size_->value());
      while (!input_end_ && buffer_.size() < target) {
        Element e;
        RETURN_IF_ERROR(Pull(e, input_end_));
        if (!input_end_) buffer_.push_back(std::move(e));
      }
      if (buffer_.empty()) {
        end = true;
        return Status::Ok();
      }
      // Multiply-shift maps a 32-bit draw onto [0, size) without a division.
      const size_t i = static_cast<size_t>(((rng_() >> 32) * buffer_.size()) >> 32);
      out = std::move(buffer_[i]);
      buffer_[i] = std::move(buffer_.back());
      buffer_.pop_back();
      stats_->buffered.store(static_cast<int64_t>(buffer_.size()), std::memory_order_relaxed);
      return Status::Ok();
    }

   private:
    const ShuffleDataset& d_;
    std::mt19937_64 rng_;
    std::vector<Element> buffer_;
    bool input_end_ = false;
  };

  TunablePtr buffer_size_;
  const uint64_t seed_;
  const bool reshuffle_;
  mutable std::atomic<uint64_t> epoch_{0};
};

}  // namespace

DatasetPtr MakeShuffleDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size,
                              uint64_t seed, bool reshuffle_each_iteration) {
  return std::make_shared<ShuffleDataset>(std::move(stats), std::move(input), std::move(buffer_size),
                                          seed, reshuffle_each_iteration);
}

}  // namespace pipescope::engine
