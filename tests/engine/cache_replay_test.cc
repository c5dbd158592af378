// A cache's first epoch and its later ones, apart (engine/tuning/cache_replay.h): the first
// is the spec without the cache, the later ones start from the cached elements, and the rate
// is weighed over the program's epochs.
#include "engine/tuning/cache_replay.h"

#include <gtest/gtest.h>

#include "engine/spec/spec_loader.h"

namespace pipescope::engine {
namespace {

spec::PipelineSpec Spec(const std::string& text) {
  auto spec = ParseSpecText(text, "cache_replay");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return *spec;
}

std::vector<std::string> OpNames(const spec::PipelineSpec& spec) {
  std::vector<std::string> names;
  for (const auto& op : spec.ops()) names.push_back(op.name());
  return names;
}

// 1000 records of 100 bytes, a take of 900 of them: 900 reach the cache, in batches of 64
// after it (15 steps an epoch).
TEST(CacheReplayTest, TheLaterEpochsStartFromTheCachedElements) {
  const auto spec = Spec(R"(source { name: "read" synthetic { records: 1000 record_bytes: 100 } }
      ops { name: "take" take { count: 900 } }
      ops { name: "cache" cache {} }
      ops { name: "shuffle" shuffle { buffer_size: 100 } }
      ops { name: "batch" batch { batch_size: 64 } }
      ops { name: "epochs" repeat { count: 3 training_loop: true } }
      train_step { step_time: "1ms" device: simulated })");
  const std::optional<CachedEpochs> cached = LaterEpochsOfACache(spec);
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(OpNames(cached->first),
            (std::vector<std::string>{"take", "shuffle", "batch", "epochs"}));
  EXPECT_EQ(cached->first.source().name(), "read");
  EXPECT_EQ(OpNames(cached->replay), (std::vector<std::string>{"shuffle", "batch", "epochs"}));
  EXPECT_EQ(cached->replay.source().name(), "cache");
  EXPECT_EQ(cached->replay.source().from_tensor_slices().count(), 900);
  EXPECT_EQ(cached->replay.source().from_tensor_slices().element_bytes(), 100);
  EXPECT_TRUE(cached->replay.has_train_step());
  EXPECT_EQ(cached->epoch_steps, 15);
  EXPECT_EQ(cached->epochs, 3);
  // Endless epochs: no count.
  auto endless = spec;
  endless.mutable_ops(4)->mutable_repeat()->clear_count();
  EXPECT_FALSE(LaterEpochsOfACache(endless)->epochs.has_value());
  // No cache, or elements the spec does not count before it: nothing to weigh.
  auto uncached = spec;
  uncached.mutable_ops()->DeleteSubrange(1, 1);
  EXPECT_FALSE(LaterEpochsOfACache(uncached).has_value());
  auto filtered = spec;
  filtered.mutable_ops(0)
      ->mutable_filter()
      ->mutable_predicate()
      ->mutable_keep_fraction()
      ->set_fraction(0.5);
  EXPECT_FALSE(LaterEpochsOfACache(filtered).has_value());
}

TEST(CacheReplayTest, TheRateIsWeighedOverTheEpochs) {
  EXPECT_DOUBLE_EQ(RateOverEpochs(100, 300, 3), 3 / (1.0 / 100 + 2.0 / 300));
  EXPECT_DOUBLE_EQ(RateOverEpochs(100, 300, 1), 100);
  EXPECT_DOUBLE_EQ(RateOverEpochs(100, 300, std::nullopt), 300);
  EXPECT_DOUBLE_EQ(RateOverEpochs(0, 300, 3), 0);
}

}  // namespace
}  // namespace pipescope::engine
