// Dataset.repeat(count): re-iterates the input count times (-1: forever, 0: not at all). Each epoch
// is a fresh iterator over the input, so shuffles reshuffle and caches serve from memory.
#include <mutex>

#include "engine/ops/ops.h"
#include "engine/runtime/counting_rules.h"

namespace pipescope::engine {
namespace {

class RepeatDataset : public UnaryDataset {
 public:
  RepeatDataset(StatsPtr stats, DatasetPtr input, int64_t count)
      : UnaryDataset(std::move(stats), std::move(input)), count_(count) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    std::unique_ptr<Iterator> first;  // none for repeat(0): its input is never read
    if (RepeatPasses(count_).Another()) {
      ASSIGN_OR_RETURN(first, input_->MakeIterator(args));
    }
    return std::unique_ptr<Iterator>(std::make_unique<It>(args, *this, std::move(first)));
  }

 private:
  class It : public Iterator {
   public:
    It(const IteratorArgs& args, const RepeatDataset& d, std::unique_ptr<Iterator> first)
        : Iterator(*args.ctx, d.stats()), args_(args), d_(d), input_(std::move(first)) {}

    void Cancel() override {
      std::lock_guard lock(mu_);
      cancelled_ = true;
      if (input_) input_->Cancel();
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      while (true) {
        if (!input_) {  // repeat(0): MakeIterator opened no pass at all
          end = true;
          return Status::Ok();
        }
        RETURN_IF_ERROR(GetNextFromInput(*input_, out, end));
        if (!end) {
          passes_.Produced();
          return Status::Ok();
        }
        passes_.PassEnded();
        if (!passes_.Another()) return Status::Ok();
        end = false;
        ASSIGN_OR_RETURN(auto next, d_.input_->MakeIterator(args_));
        std::unique_ptr<Iterator> old;
        {
          std::lock_guard lock(mu_);
          if (cancelled_) return Cancelled();
          old = std::exchange(input_, std::move(next));
        }
      }
    }

   private:
    const IteratorArgs args_;
    const RepeatDataset& d_;
    std::mutex mu_;  // guards input_ replacement against a concurrent Cancel
    bool cancelled_ = false;
    std::unique_ptr<Iterator> input_;
    RepeatPasses passes_{d_.count_};
  };

  const int64_t count_;
};

}  // namespace

DatasetPtr MakeRepeatDataset(StatsPtr stats, DatasetPtr input, int64_t count) {
  return std::make_shared<RepeatDataset>(std::move(stats), std::move(input), count);
}

}  // namespace pipescope::engine
