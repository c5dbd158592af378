// Dataset.from_tensor_slices(x) over a 1-D x: its entries as scalar elements, in order,
// every pass the same. Over arrays whose rows the spec sizes (element_bytes), each element is
// a row of that many bytes, copied out as tf.data copies a slice.
#include <cstring>

#include "engine/ops/ops.h"

namespace pipescope::engine {
namespace {

class FromTensorSlicesDataset : public Dataset {
 public:
  FromTensorSlicesDataset(StatsPtr stats, std::vector<Tensor> slices, int64_t element_bytes)
      : Dataset(std::move(stats)), slices_(std::move(slices)), element_bytes_(element_bytes) {}

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
      out.features.clear();
      if (d_.element_bytes_ > 0) {
        Tensor row(DType::kUint8, Shape{d_.element_bytes_});
        std::memset(row.raw(), static_cast<int>(next_++ & 0xFF), row.byte_size());
        out.value = std::move(row);
        return Status::Ok();
      }
      out.value = d_.slices_[next_++];
      return Status::Ok();
    }

   private:
    const FromTensorSlicesDataset& d_;
    size_t next_ = 0;
  };

  const std::vector<Tensor> slices_;
  const int64_t element_bytes_;  // 0: the slices themselves
};

}  // namespace

DatasetPtr MakeFromTensorSlicesDataset(StatsPtr stats, std::vector<Tensor> slices,
                                       int64_t element_bytes) {
  return std::make_shared<FromTensorSlicesDataset>(std::move(stats), std::move(slices),
                                                   element_bytes);
}

}  // namespace pipescope::engine
