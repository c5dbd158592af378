// Dataset.range(start, stop, step): int64 scalars.
#include "engine/ops/ops.h"

namespace pipescope::engine {
namespace {

class RangeDataset : public Dataset {
 public:
  RangeDataset(StatsPtr stats, int64_t start, int64_t stop, int64_t step)
      : Dataset(std::move(stats)), start_(start), stop_(stop), step_(step) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return std::unique_ptr<Iterator>(std::make_unique<It>(*args.ctx, *this));
  }

 private:
  class It : public SourceIterator {
   public:
    It(PipelineContext& ctx, const RangeDataset& d)
        : SourceIterator(ctx, d.stats()), d_(d), next_(d.start_) {}
    void Cancel() override {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (d_.step_ > 0 ? next_ >= d_.stop_ : next_ <= d_.stop_) {
        end = true;
        return Status::Ok();
      }
      out.id = ctx_.NewElementId();
      out.value = Tensor::Int64(next_);
      out.features.clear();
      next_ += d_.step_;
      return Status::Ok();
    }

   private:
    const RangeDataset& d_;
    int64_t next_;
  };

  const int64_t start_, stop_, step_;
};

}  // namespace

DatasetPtr MakeRangeDataset(StatsPtr stats, int64_t start, int64_t stop, int64_t step) {
  return std::make_shared<RangeDataset>(std::move(stats), start, stop, step);
}

}  // namespace pipescope::engine
