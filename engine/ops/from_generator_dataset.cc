// Dataset.from_generator(gen): the generator's next() per element, on the caller's thread,
// one call at a time (a Python generator cannot be resumed by two threads at once); its
// Python holds the interpreter lock as the work function says (python_work.h).
#include "engine/ops/ops.h"
#include "engine/work/python_work.h"

namespace pipescope::engine {
namespace {

class FromGeneratorDataset : public Dataset {
 public:
  FromGeneratorDataset(StatsPtr stats, int64_t records, std::shared_ptr<const WorkFunction> next)
      : Dataset(std::move(stats)), records_(records), next_(std::move(next)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return std::unique_ptr<Iterator>(std::make_unique<It>(*args.ctx, *this));
  }

 private:
  class It : public SourceIterator {
   public:
    It(PipelineContext& ctx, const FromGeneratorDataset& d)
        : SourceIterator(ctx, d.stats()), d_(d) {}
    void Cancel() override {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (d_.records_ >= 0 && yielded_ >= d_.records_) {
        end = true;
        return Status::Ok();
      }
      out.id = ctx_.NewElementId();
      out.features.clear();
      const LockWaitsRecordedAs lock_waits(ctx_.recorder, stats_->id);
      RETURN_IF_ERROR(d_.next_->Apply(out, ctx_.cancellation));
      out.value = Tensor::Int64(yielded_++);
      return Status::Ok();
    }

   private:
    const FromGeneratorDataset& d_;
    int64_t yielded_ = 0;
  };

  const int64_t records_;
  const std::shared_ptr<const WorkFunction> next_;
};

}  // namespace

DatasetPtr MakeFromGeneratorDataset(StatsPtr stats, int64_t records,
                                    std::shared_ptr<const WorkFunction> next) {
  return std::make_shared<FromGeneratorDataset>(std::move(stats), records, std::move(next));
}

}  // namespace pipescope::engine
