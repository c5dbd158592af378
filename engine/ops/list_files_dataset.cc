// Dataset.list_files(pattern, shuffle, seed): matching file names, shuffled each pass unless
// shuffle is false (then sorted).
#include <glob.h>

#include <algorithm>
#include <random>
#include <vector>

#include "engine/ops/ops.h"
#include "engine/runtime/shuffle_rules.h"

namespace pipescope::engine {
namespace {

class ListFilesDataset : public Dataset {
 public:
  ListFilesDataset(StatsPtr stats, std::string pattern, bool shuffle, std::optional<uint64_t> seed)
      : Dataset(std::move(stats)),
        pattern_(std::move(pattern)),
        shuffle_(shuffle),
        seed_(seed ? *seed : std::random_device{}()) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    glob_t g{};
    const int rc = glob(pattern_.c_str(), GLOB_NOSORT, nullptr, &g);
    std::vector<std::string> files;
    if (rc == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) files.emplace_back(g.gl_pathv[i]);
    }
    globfree(&g);
    if (files.empty()) {
      // tf.data raises here too: an empty file list is almost always a wrong path.
      return NotFound("list_files: no files match '" + pattern_ + "'");
    }
    std::sort(files.begin(), files.end());
    if (shuffle_) {
      ShuffleInPlace(files, ShufflePassSeed(seed_, passes_.fetch_add(1), true));
    }
    return std::unique_ptr<Iterator>(std::make_unique<It>(*args.ctx, stats(), std::move(files)));
  }

 private:
  class It : public SourceIterator {
   public:
    It(PipelineContext& ctx, StageStats* stats, std::vector<std::string> files)
        : SourceIterator(ctx, stats), files_(std::move(files)) {}
    void Cancel() override {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (next_ >= files_.size()) {
        end = true;
        return Status::Ok();
      }
      out.id = ctx_.NewElementId();
      out.value = Tensor::String(files_[next_++]);
      out.features.clear();
      return Status::Ok();
    }

   private:
    std::vector<std::string> files_;
    size_t next_ = 0;
  };

  const std::string pattern_;
  const bool shuffle_;
  const uint64_t seed_;
  mutable std::atomic<uint64_t> passes_{0};
};

}  // namespace

DatasetPtr MakeListFilesDataset(StatsPtr stats, std::string pattern, bool shuffle,
                                std::optional<uint64_t> seed) {
  return std::make_shared<ListFilesDataset>(std::move(stats), std::move(pattern), shuffle, seed);
}

}  // namespace pipescope::engine
