// Dataset.shard(num_shards, index): keeps every num_shards-th element starting at index.
#include "engine/ops/ops.h"
#include "engine/runtime/counting_rules.h"

namespace pipescope::engine {
namespace {

class ShardDataset : public UnaryDataset {
 public:
  ShardDataset(StatsPtr stats, DatasetPtr input, int64_t n, int64_t index)
      : UnaryDataset(std::move(stats), std::move(input)), num_shards_(n), index_(index) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    return MakeIteratorOver<It>(*this, args);
  }

 private:
  class It : public UnaryIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in, const ShardDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      while (true) {
        RETURN_IF_ERROR(Pull(out, end));
        if (end) return Status::Ok();
        if (shard_.KeepNext()) return Status::Ok();
      }
    }

   private:
    const ShardDataset& d_;
    ShardSelector shard_{d_.num_shards_, d_.index_};
  };

  const int64_t num_shards_, index_;
};

}  // namespace

DatasetPtr MakeShardDataset(StatsPtr stats, DatasetPtr input, int64_t num_shards, int64_t index) {
  return std::make_shared<ShardDataset>(std::move(stats), std::move(input), num_shards, index);
}

}  // namespace pipescope::engine
