// Dataset.from_generator(gen): the generator's next() per element, on the caller's thread,
// one call at a time (a Python generator cannot be resumed by two threads at once); its
// Python holds the interpreter lock as the work function says (python_work.h). A generator
// that yields whole batches (rows_per_yield) gives each as a vector of the rows it counts.
#include "engine/ops/ops.h"
#include "engine/spec/op_values.h"
#include "engine/work/python_work.h"

namespace pipescope::engine {
namespace {

class FromGeneratorDataset : public Dataset {
 public:
  FromGeneratorDataset(StatsPtr stats, int64_t records, int64_t rows_per_yield,
                       int64_t first_wait_ns, std::shared_ptr<const WorkFunction> next)
      : Dataset(std::move(stats)),
        records_(records),
        rows_per_yield_(rows_per_yield),
        first_wait_ns_(first_wait_ns),
        next_(std::move(next)) {}

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
      // The generator's code before its first yield runs in the first next().
      if (yielded_ == 0 && !started_) {
        started_ = true;
        if (d_.first_wait_ns_ > 0 && !ctx_.cancellation.SleepFor(d_.first_wait_ns_)) {
          end = true;
          return Status::Ok();
        }
      }
      out.id = ctx_.NewElementId();
      out.features.clear();
      const LockWaitsRecordedAs lock_waits(ctx_.recorder, stats_->id);
      RETURN_IF_ERROR(d_.next_->Apply(out, ctx_.cancellation));
      out.value = GeneratorYield(yielded_, d_.records_, d_.rows_per_yield_);
      yielded_ += GeneratorRowsOfYield(yielded_, d_.records_, d_.rows_per_yield_);
      return Status::Ok();
    }

   private:
    const FromGeneratorDataset& d_;
    int64_t yielded_ = 0;
    bool started_ = false;
  };

  const int64_t records_;
  const int64_t rows_per_yield_;
  const int64_t first_wait_ns_;
  const std::shared_ptr<const WorkFunction> next_;
};

}  // namespace

Tensor GeneratorYield(int64_t yielded, int64_t records, int64_t rows_per_yield) {
  if (rows_per_yield <= 1) return Tensor::Int64(yielded);
  const int64_t rows = GeneratorRowsOfYield(yielded, records, rows_per_yield);
  Tensor batch(DType::kInt64, Shape{rows});
  for (int64_t i = 0; i < rows; ++i) batch.data<int64_t>()[i] = yielded + i;
  return batch;
}

DatasetPtr MakeFromGeneratorDataset(StatsPtr stats, int64_t records, int64_t rows_per_yield,
                                    int64_t first_wait_ns,
                                    std::shared_ptr<const WorkFunction> next) {
  return std::make_shared<FromGeneratorDataset>(std::move(stats), records, rows_per_yield,
                                                first_wait_ns, std::move(next));
}

}  // namespace pipescope::engine
