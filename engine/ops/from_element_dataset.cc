// Dataset.from_tensors(x) inside an interleave: the element the sub-dataset was opened
// for, handed out once, or x times for from_tensors(x).repeat(x) (tf.data's own interleave
// tests build their sub-datasets so), or once for each of its `slices` rows
// (ElementsFromElement). Each copy is a new element.
#include "engine/ops/ops.h"
#include "engine/runtime/counting_rules.h"

namespace pipescope::engine {
namespace {

class FromElementDataset : public Dataset {
 public:
  FromElementDataset(StatsPtr stats, bool repeat_by_value, int64_t slices)
      : Dataset(std::move(stats)), repeat_by_value_(repeat_by_value), slices_(slices) {}
  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    if (args.parent == nullptr) return Internal("from_element outside an interleave");
    int64_t x = 0;
    if (repeat_by_value_) {
      ASSIGN_OR_RETURN(x, args.parent->value.Int64ScalarFor("from_element.repeat_by_value"));
    }
    const Countdown copies = ElementsFromElement(repeat_by_value_, slices_, x);
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
  const int64_t slices_;
};

}  // namespace

DatasetPtr MakeFromElementDataset(StatsPtr stats, bool repeat_by_value, int64_t slices) {
  return std::make_shared<FromElementDataset>(std::move(stats), repeat_by_value, slices);
}

}  // namespace pipescope::engine
