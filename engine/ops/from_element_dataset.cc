// Dataset.from_tensors(x) inside an interleave: the element the sub-dataset was opened
// for, handed out once, or x times for from_tensors(x).repeat(x) (tf.data's own interleave
// tests build their sub-datasets so). Each copy is a new element.
#include "engine/ops/ops.h"
#include "engine/runtime/counting_rules.h"

namespace pipescope::engine {
namespace {

class FromElementDataset : public Dataset {
 public:
  FromElementDataset(StatsPtr stats, bool repeat_by_value)
      : Dataset(std::move(stats)), repeat_by_value_(repeat_by_value) {}
  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    if (args.parent == nullptr) return Internal("from_element outside an interleave");
    Countdown copies(1);
    if (repeat_by_value_) {
      ASSIGN_OR_RETURN(const int64_t x,
                       args.parent->value.Int64ScalarFor("from_element.repeat_by_value"));
      copies = CopiesOfValue(x);
    }
    return std::unique_ptr<Iterator>(
        std::make_unique<It>(*args.ctx, stats(), *args.parent, copies));
  }

 private:
  class It : public SourceIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, Element element, Countdown copies)
        : SourceIterator(ctx, stats), element_(std::move(element)), copies_(copies) {}
    void Cancel() override {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (copies_.Done()) {
        end = true;
        return Status::Ok();
      }
      copies_.Count();
      out = element_;
      out.id = ctx_.NewElementId();
      return Status::Ok();
    }

   private:
    Element element_;
    Countdown copies_;
  };

  const bool repeat_by_value_;
};

}  // namespace

DatasetPtr MakeFromElementDataset(StatsPtr stats, bool repeat_by_value) {
  return std::make_shared<FromElementDataset>(std::move(stats), repeat_by_value);
}

}  // namespace pipescope::engine
