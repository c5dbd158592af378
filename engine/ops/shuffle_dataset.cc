// Dataset.shuffle(buffer_size, seed, reshuffle_each_iteration): fills a buffer, then
// returns a uniformly chosen buffered element and refills its slot (tf.data's algorithm).
// The first element costs a full buffer fill: the price of randomness the lessons show.
// buffer_size is live: growing fills more, shrinking stops refilling until below.
// Fused with the repeat after it (PlannedOp::shuffle_passes), it makes its input's passes
// itself and fills across their ends (ShuffleBuffer), as tf.data's fused op does.
#include <mutex>
#include <random>

#include "engine/ops/ops.h"
#include "engine/runtime/counting_rules.h"
#include "engine/runtime/shuffle_rules.h"

namespace pipescope::engine {
namespace {

class ShuffleDataset : public UnaryDataset {
 public:
  ShuffleDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size,
                 std::optional<uint64_t> seed, bool reshuffle, int64_t passes)
      : UnaryDataset(std::move(stats), std::move(input)),
        buffer_size_(std::move(buffer_size)),
        seed_(seed ? *seed : std::random_device{}()),
        reshuffle_(reshuffle),
        passes_(passes) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    ASSIGN_OR_RETURN(auto in, input_->MakeIterator(args));
    return std::unique_ptr<Iterator>(std::make_unique<It>(args, std::move(in), *this));
  }

 private:
  uint64_t NextPassSeed() const {
    return ShufflePassSeed(seed_, made_.fetch_add(1, std::memory_order_relaxed), reshuffle_);
  }

  class It : public Iterator {
   public:
    It(const IteratorArgs& args, std::unique_ptr<Iterator> in, const ShuffleDataset& d)
        : Iterator(*args.ctx, d.stats()),
          args_(args),
          d_(d),
          input_(std::move(in)),
          pick_(d.NextPassSeed()),
          input_end_(!passes_.Another()) {}

    void Cancel() override {
      std::lock_guard lock(mu_);
      cancelled_ = true;
      input_->Cancel();
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      const auto target = static_cast<size_t>(d_.buffer_size_->value());
      while (!input_end_ && buffer_.size() < target) {
        Element e;
        bool pass_end = false;
        RETURN_IF_ERROR(GetNextFromInput(*input_, e, pass_end));
        if (!pass_end) {
          passes_.Produced();
          buffer_.Add(std::move(e));
        } else {
          passes_.PassEnded();
          input_end_ = !passes_.Another();
          if (!input_end_) RETURN_IF_ERROR(NextPass());
        }
        if (!buffer_.TakesMore()) break;
      }
      if (buffer_.empty()) {
        end = true;
        return Status::Ok();
      }
      out = buffer_.Take(pick_);
      SetBufferLevel(static_cast<int64_t>(buffer_.size()));
      return Status::Ok();
    }

   private:
    Status NextPass() {
      ASSIGN_OR_RETURN(auto next, d_.input_->MakeIterator(args_));
      std::unique_ptr<Iterator> old;  // destroyed outside the lock
      {
        std::lock_guard lock(mu_);
        if (cancelled_) return Cancelled();
        old = std::exchange(input_, std::move(next));
      }
      buffer_.StartEpoch();
      return Status::Ok();
    }

    const IteratorArgs args_;
    const ShuffleDataset& d_;
    std::mutex mu_;  // guards input_ replacement against a concurrent Cancel
    bool cancelled_ = false;
    std::unique_ptr<Iterator> input_;
    ShufflePick pick_;
    ShuffleBuffer<Element> buffer_;
    RepeatPasses passes_{d_.passes_};
    bool input_end_;
  };

  TunablePtr buffer_size_;
  const uint64_t seed_;
  const bool reshuffle_;
  const int64_t passes_;  // over its input: 1 alone, the repeat's count fused with one
  mutable std::atomic<uint64_t> made_{0};
};

}  // namespace

DatasetPtr MakeShuffleDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size,
                              std::optional<uint64_t> seed, bool reshuffle_each_iteration,
                              int64_t passes) {
  return std::make_shared<ShuffleDataset>(std::move(stats), std::move(input),
                                          std::move(buffer_size), seed, reshuffle_each_iteration,
                                          passes);
}

}  // namespace pipescope::engine
