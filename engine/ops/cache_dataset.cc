// Dataset.cache() in memory: the first complete pass is recorded; later passes (the next
// epochs of a repeat) replay it without touching the input. A pass that stops early
// caches nothing, as in tf.data.
#include <mutex>
#include <vector>

#include "engine/ops/ops.h"

namespace pipescope::engine {
namespace {

using Cached = std::shared_ptr<const std::vector<Element>>;

class CacheDataset : public UnaryDataset {
 public:
  CacheDataset(StatsPtr stats, DatasetPtr input)
      : UnaryDataset(std::move(stats), std::move(input)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    Cached cached;
    {
      std::lock_guard lock(mu_);
      cached = cached_;
    }
    if (cached) {
      return std::unique_ptr<Iterator>(std::make_unique<ReplayIt>(*args.ctx, stats(), cached));
    }
    ASSIGN_OR_RETURN(auto in, input_->MakeIterator(args));
    return std::unique_ptr<Iterator>(
        std::make_unique<FillIt>(*args.ctx, stats(), std::move(in), *this));
  }

 private:
  void Publish(std::vector<Element> elements) const {
    std::lock_guard lock(mu_);
    if (!cached_) cached_ = std::make_shared<const std::vector<Element>>(std::move(elements));
  }

  class FillIt : public UnaryIterator {
   public:
    FillIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
           const CacheDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      RETURN_IF_ERROR(Pull(out, end));
      if (end) {
        d_.Publish(std::move(recorded_));
        return Status::Ok();
      }
      recorded_.push_back(out);
      stats_->buffered.store(static_cast<int64_t>(recorded_.size()), std::memory_order_relaxed);
      return Status::Ok();
    }

   private:
    const CacheDataset& d_;
    std::vector<Element> recorded_;
  };

  class ReplayIt : public Iterator {
   public:
    ReplayIt(PipelineContext& ctx, StageStats* stats, Cached cached)
        : Iterator(ctx, stats), cached_(std::move(cached)) {}
    void Cancel() override {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (next_ >= cached_->size()) {
        end = true;
        return Status::Ok();
      }
      out = (*cached_)[next_++];
      out.id = ctx_.NewElementId();
      return Status::Ok();
    }

   private:
    Cached cached_;
    size_t next_ = 0;
  };

  mutable std::mutex mu_;
  mutable Cached cached_;
};

}  // namespace

DatasetPtr MakeCacheDataset(StatsPtr stats, DatasetPtr input) {
  return std::make_shared<CacheDataset>(std::move(stats), std::move(input));
}

}  // namespace pipescope::engine
