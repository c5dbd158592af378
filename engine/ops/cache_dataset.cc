// Dataset.cache() in memory: the first complete pass is recorded; later passes (the next
// epochs of a repeat) replay it without touching the input. A pass that stops early
// caches nothing, as in tf.data.
#include "engine/ops/ops.h"
#include "engine/runtime/cache_rules.h"

namespace pipescope::engine {
namespace {

class CacheDataset : public UnaryDataset {
 public:
  CacheDataset(StatsPtr stats, DatasetPtr input)
      : UnaryDataset(std::move(stats), std::move(input)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    if (auto cached = cache_.Complete()) {
      return std::unique_ptr<Iterator>(std::make_unique<ReplayIt>(*args.ctx, stats(), cached));
    }
    ASSIGN_OR_RETURN(auto in, input_->MakeIterator(args));
    return std::unique_ptr<Iterator>(
        std::make_unique<FillIt>(*args.ctx, stats(), std::move(in), *this));
  }

 private:
  class FillIt : public UnaryIterator {
   public:
    FillIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
           const CacheDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), recording_(d.cache_) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      RETURN_IF_ERROR(Pull(out, end));
      if (end) {
        recording_.Finish();
        return Status::Ok();
      }
      recording_.Keep(out);
      SetBufferLevel(static_cast<int64_t>(recording_.size()));
      return Status::Ok();
    }

   private:
    PassCache<Element>::Recording recording_;
  };

  class ReplayIt : public Iterator {
   public:
    ReplayIt(PipelineContext& ctx, StageStats* stats, PassCache<Element>::Kept cached)
        : Iterator(ctx, stats), replay_(std::move(cached)) {}
    void Cancel() override {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      const Element* kept = replay_.Next();
      if (!kept) {
        end = true;
        return Status::Ok();
      }
      out = *kept;
      out.id = ctx_.NewElementId();
      return Status::Ok();
    }

   private:
    CacheReplay<Element> replay_;
  };

  mutable PassCache<Element> cache_;
};

}  // namespace

DatasetPtr MakeCacheDataset(StatsPtr stats, DatasetPtr input) {
  return std::make_shared<CacheDataset>(std::move(stats), std::move(input));
}

}  // namespace pipescope::engine
