// Dataset.from_tensor_slices(x) over a 1-D x: its entries as scalar elements, in order,
// every pass the same.
#include "engine/ops/ops.h"

namespace pipescope::engine {
namespace {

class FromTensorSlicesDataset : public Dataset {
 public:
  FromTensorSlicesDataset(StatsPtr stats, std::vector<Tensor> slices)
      : Dataset(std::move(stats)), slices_(std::move(slices)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return std::unique_ptr<Iterator>(std::make_unique<It>(*args.ctx, *this));
  }

 private:
  class It : public SourceIterator {
   public:
    It(PipelineContext& ctx, const FromTensorSlicesDataset& d)
        : SourceIterator(ctx, d.stats()), d_(d) {}
    void Cancel() override {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (next_ >= d_.slices_.size()) {
        end = true;
        return Status::Ok();
      }
      out.id = ctx_.NewElementId();
      out.value = d_.slices_[next_++];
      out.features.clear();
      return Status::Ok();
    }

   private:
    const FromTensorSlicesDataset& d_;
    size_t next_ = 0;
  };

  const std::vector<Tensor> slices_;
};

}  // namespace

DatasetPtr MakeFromTensorSlicesDataset(StatsPtr stats, std::vector<Tensor> slices) {
  return std::make_shared<FromTensorSlicesDataset>(std::move(stats), std::move(slices));
}

}  // namespace pipescope::engine
