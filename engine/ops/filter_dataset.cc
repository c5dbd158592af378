// Dataset.filter(predicate): keeps the elements the predicate accepts, in order.
#include "engine/ops/ops.h"

namespace pipescope::engine {
namespace {

class FilterDataset : public UnaryDataset {
 public:
  FilterDataset(StatsPtr stats, DatasetPtr input, std::shared_ptr<const Predicate> predicate)
      : UnaryDataset(std::move(stats), std::move(input)), predicate_(std::move(predicate)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return MakeIteratorOver<It>(*this, args);
  }

 private:
  class It : public UnaryIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
       const FilterDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      while (true) {
        RETURN_IF_ERROR(Pull(out, end));
        if (end) return Status::Ok();
        auto keep = d_.predicate_->Keep(out);
        if (!keep.ok()) return keep.status().WithContext("filter '" + stats_->name + "'");
        if (*keep) return Status::Ok();
      }
    }

   private:
    const FilterDataset& d_;
  };

  std::shared_ptr<const Predicate> predicate_;
};

}  // namespace

DatasetPtr MakeFilterDataset(StatsPtr stats, DatasetPtr input,
                             std::shared_ptr<const Predicate> predicate) {
  return std::make_shared<FilterDataset>(std::move(stats), std::move(input), std::move(predicate));
}

}  // namespace pipescope::engine
