// Simulated sources: range, synthetic, TFRecord and list_files at the top level, and the
// per-file sources of an interleave's sub-pipeline. One record per GetNext, costing the
// stage's CPU and storage wait; a file's open latency on its first read.
#include <algorithm>
#include <numeric>

#include "engine/sim/sim_ops.h"

namespace pipescope::sim {
namespace {

class SourceDataset : public SimDataset {
 public:
  SourceDataset(SimStage& stage, int64_t records, uint64_t shuffle_seed)
      : SimDataset(stage), records_(records), shuffle_seed_(shuffle_seed) {}

  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx, const SimElement* parent) override {
    std::vector<int64_t> order;
    if (shuffle_seed_ != 0 && records_ > 0) {  // list_files(shuffle=True): a new order per pass
      order.resize(static_cast<size_t>(records_));
      std::iota(order.begin(), order.end(), 0);
      Rng rng(shuffle_seed_ + passes_);
      for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Next() % i]);
    }
    ++passes_;
    return std::make_unique<It>(ctx, stage_, records_, parent ? parent->key : 0, std::move(order));
  }

 private:
  class It : public SimIterator {
   public:
    It(SimContext& ctx, SimStage& stage, int64_t records, uint64_t parent_key,
       std::vector<int64_t> order)
        : SimIterator(ctx, stage),
          records_(records),
          parent_key_(parent_key),
          order_(std::move(order)) {}

   protected:
    Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
      if (!opened_) {
        opened_ = true;
        co_await scheduler().Sleep(stage_.cost->open_wait.Sample(stage_.rng));
      }
      if (records_ >= 0 && next_ >= records_) co_return false;
      co_await Charge(thread, CpuCost(1), WaitCost());
      const int64_t index = order_.empty() ? next_ : order_[static_cast<size_t>(next_)];
      ++next_;
      out = SimElement{ctx_.NewElementId(), std::max<int64_t>(1, stage_.cost->out_bytes), 1,
                       RecordKey(parent_key_, index)};
      co_return true;
    }

   private:
    const int64_t records_;
    const uint64_t parent_key_;
    const std::vector<int64_t> order_;
    int64_t next_ = 0;
    bool opened_ = false;
  };

  const int64_t records_;
  const uint64_t shuffle_seed_;
  uint64_t passes_ = 0;
};

// Dataset.from_tensors(x) inside an interleave: the element it was opened for, once.
class FromElementDataset : public SimDataset {
 public:
  using SimDataset::SimDataset;
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx, const SimElement* parent) override {
    return std::make_unique<It>(ctx, stage_, parent ? *parent : SimElement{});
  }

 private:
  class It : public SimIterator {
   public:
    It(SimContext& ctx, SimStage& stage, SimElement element)
        : SimIterator(ctx, stage), element_(element) {}

   protected:
    Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
      if (done_) co_return false;
      done_ = true;
      co_await Charge(thread, CpuCost(1), 0);
      out = element_;
      co_return true;
    }

   private:
    const SimElement element_;
    bool done_ = false;
  };
};

}  // namespace

SimDatasetPtr MakeSimSource(SimStage& stage, int64_t records, uint64_t shuffle_seed) {
  return std::make_shared<SourceDataset>(stage, records, shuffle_seed);
}

SimDatasetPtr MakeSimFromElement(SimStage& stage) {
  return std::make_shared<FromElementDataset>(stage);
}

}  // namespace pipescope::sim
