// Dataset.zip((input, second)): pulls the input, then the second pipeline, and pairs them
// (ZipElements); ends at the first of the two to end, without pulling the other again, as
// tf.data's zip does.
#include "engine/ops/ops.h"

namespace pipescope::engine {
namespace {

class ZipDataset : public UnaryDataset {
 public:
  ZipDataset(StatsPtr stats, DatasetPtr input, DatasetPtr second, std::string second_name)
      : UnaryDataset(std::move(stats), std::move(input)),
        second_(std::move(second)),
        second_name_(std::move(second_name)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    ASSIGN_OR_RETURN(auto in, input_->MakeIterator(args));
    // The second pipeline is its own: no element opened it.
    ASSIGN_OR_RETURN(auto second, second_->MakeIterator({args.ctx, nullptr}));
    return std::unique_ptr<Iterator>(
        std::make_unique<It>(*args.ctx, stats(), std::move(in), std::move(second), *this));
  }

 private:
  class It : public UnaryIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
       std::unique_ptr<Iterator> second, const ZipDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), second_(std::move(second)), d_(d) {}
    void Cancel() override {
      UnaryIterator::Cancel();
      second_->Cancel();
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      RETURN_IF_ERROR(Pull(out, end));
      if (end) return Status::Ok();
      Element partner;
      RETURN_IF_ERROR(GetNextFromInput(*second_, partner, end));
      if (end) return Status::Ok();
      ASSIGN_OR_RETURN(out, ZipElements(std::move(out), partner, d_.second_name_));
      return Status::Ok();
    }

   private:
    std::unique_ptr<Iterator> second_;
    const ZipDataset& d_;
  };

  DatasetPtr second_;
  const std::string second_name_;
};

}  // namespace

DatasetPtr MakeZipDataset(StatsPtr stats, DatasetPtr input, DatasetPtr second,
                          std::string second_name) {
  return std::make_shared<ZipDataset>(std::move(stats), std::move(input), std::move(second),
                                      std::move(second_name));
}

}  // namespace pipescope::engine
