// Dataset.batch(batch_size, drop_remainder): stacks consecutive elements along a new
// leading axis (or combines them as the op that groups them says: padded_batch pads, then
// stacks). batch_size is live: a change applies from the next batch on.
#include <vector>

#include "engine/ops/ops.h"
#include "engine/runtime/batch_rules.h"

namespace pipescope::engine {
namespace {

class BatchDataset : public UnaryDataset {
 public:
  BatchDataset(StatsPtr stats, DatasetPtr input, TunablePtr batch_size, bool drop_remainder,
               CombineComponent combine)
      : UnaryDataset(std::move(stats), std::move(input)),
        batch_size_(std::move(batch_size)),
        drop_remainder_(drop_remainder),
        combine_(std::move(combine)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return MakeIteratorOver<It>(*this, args);
  }

 private:
  class It : public UnaryIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in, const BatchDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      const auto size = static_cast<size_t>(d_.batch_size_->value());
      rows_.clear();
      rows_.reserve(size);
      bool input_end = false;
      while (rows_.size() < size) {
        Element e;
        RETURN_IF_ERROR(Pull(e, input_end));
        if (input_end) break;
        rows_.push_back(std::move(e));
      }
      if (!IsBatch(static_cast<int64_t>(rows_.size()), static_cast<int64_t>(size), input_end,
                   d_.drop_remainder_)) {
        end = true;
        return Status::Ok();
      }
      auto batch = CombineRows(rows_, ctx_.NewElementId(), d_.combine_);
      if (!batch.ok()) {
        return batch.status().WithContext(stats_->kind + " '" + stats_->name + "'");
      }
      out = std::move(batch).value();
      return Status::Ok();
    }

   private:
    const BatchDataset& d_;
    std::vector<Element> rows_;
  };

  TunablePtr batch_size_;
  const bool drop_remainder_;
  const CombineComponent combine_;
};

class UnbatchDataset : public UnaryDataset {
 public:
  UnbatchDataset(StatsPtr stats, DatasetPtr input)
      : UnaryDataset(std::move(stats), std::move(input)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return MakeIteratorOver<It>(*this, args);
  }

 private:
  class It : public UnaryIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in, const UnbatchDataset&)
        : UnaryIterator(ctx, stats, std::move(in)) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      while (next_row_ >= rows_) {
        RETURN_IF_ERROR(Pull(batch_, end));
        if (end) return Status::Ok();
        const Tensor& lead = LeadComponent(batch_);
        if (lead.shape().rank() == 0) {
          return InvalidArgument("unbatch '" + stats_->name + "': element of shape " +
                                 lead.shape().ToString() + " has no batch dimension");
        }
        rows_ = lead.shape().dim(0);
        next_row_ = 0;
      }
      out = RowOf(batch_, next_row_++, ctx_.NewElementId());
      return Status::Ok();
    }

   private:
    Element batch_;
    int64_t rows_ = 0;
    int64_t next_row_ = 0;
  };
};

}  // namespace

DatasetPtr MakeBatchDataset(StatsPtr stats, DatasetPtr input, TunablePtr batch_size,
                            bool drop_remainder, CombineComponent combine) {
  return std::make_shared<BatchDataset>(std::move(stats), std::move(input), std::move(batch_size),
                                        drop_remainder, std::move(combine));
}

DatasetPtr MakeUnbatchDataset(StatsPtr stats, DatasetPtr input) {
  return std::make_shared<UnbatchDataset>(std::move(stats), std::move(input));
}

}  // namespace pipescope::engine
