// Dataset.shuffle(buffer_size, seed, reshuffle_each_iteration): fills a buffer, then
// returns a uniformly chosen buffered element and refills its slot (tf.data's algorithm).
// The first element costs a full buffer fill: the price of randomness the lessons show.
// buffer_size is live: growing fills more, shrinking stops refilling until below.
#include <random>
#include <vector>

#include "engine/ops/ops.h"
#include "engine/runtime/shuffle_rules.h"

namespace pipescope::engine {
namespace {

class ShuffleDataset : public UnaryDataset {
 public:
  ShuffleDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size,
                 std::optional<uint64_t> seed, bool reshuffle)
      : UnaryDataset(std::move(stats), std::move(input)),
        buffer_size_(std::move(buffer_size)),
        seed_(seed ? *seed : std::random_device{}()),
        reshuffle_(reshuffle) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return MakeIteratorOver<It>(*this, args);
  }

 private:
  uint64_t NextPassSeed() const {
    return ShufflePassSeed(seed_, passes_.fetch_add(1, std::memory_order_relaxed), reshuffle_);
  }

  class It : public UnaryIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
       const ShuffleDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d), pick_(d.NextPassSeed()) {}

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
      const size_t i = pick_.Next(buffer_.size());
      out = std::move(buffer_[i]);
      buffer_[i] = std::move(buffer_.back());
      buffer_.pop_back();
      SetBufferLevel(static_cast<int64_t>(buffer_.size()));
      return Status::Ok();
    }

   private:
    const ShuffleDataset& d_;
    ShufflePick pick_;
    std::vector<Element> buffer_;
    bool input_end_ = false;
  };

  TunablePtr buffer_size_;
  const uint64_t seed_;
  const bool reshuffle_;
  mutable std::atomic<uint64_t> passes_{0};
};

}  // namespace

DatasetPtr MakeShuffleDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size,
                              std::optional<uint64_t> seed, bool reshuffle_each_iteration) {
  return std::make_shared<ShuffleDataset>(std::move(stats), std::move(input),
                                          std::move(buffer_size), seed, reshuffle_each_iteration);
}

}  // namespace pipescope::engine
