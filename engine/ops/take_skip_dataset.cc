// Dataset.take(count) and Dataset.skip(count); -1 means all.
#include "engine/ops/ops.h"
#include "engine/runtime/counting_rules.h"

namespace pipescope::engine {
namespace {

class TakeSkipDataset : public UnaryDataset {
 public:
  enum class Kind { kTake, kSkip };
  TakeSkipDataset(StatsPtr stats, DatasetPtr input, int64_t count, Kind kind)
      : UnaryDataset(std::move(stats), std::move(input)), count_(count), kind_(kind) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return MakeIteratorOver<It>(*this, args);
  }

 private:
  class It : public UnaryIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
       const TakeSkipDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (d_.kind_ == Kind::kTake) {
        if (left_.Done()) {
          end = true;
          // Stop upstream work that would only be thrown away (prefetch, parallel map).
          input_->Cancel();
          return Status::Ok();
        }
        left_.Count();
        return Pull(out, end);
      }
      while (!left_.Done()) {
        RETURN_IF_ERROR(Pull(out, end));
        if (end) return Status::Ok();
        left_.Count();
      }
      return Pull(out, end);
    }

   private:
    const TakeSkipDataset& d_;
    Countdown left_{d_.count_};  // to take, or to skip
  };

  const int64_t count_;
  const Kind kind_;
};

}  // namespace

DatasetPtr MakeTakeDataset(StatsPtr stats, DatasetPtr input, int64_t count) {
  return std::make_shared<TakeSkipDataset>(std::move(stats), std::move(input), count,
                                           TakeSkipDataset::Kind::kTake);
}

DatasetPtr MakeSkipDataset(StatsPtr stats, DatasetPtr input, int64_t count) {
  return std::make_shared<TakeSkipDataset>(std::move(stats), std::move(input), count,
                                           TakeSkipDataset::Kind::kSkip);
}

}  // namespace pipescope::engine
