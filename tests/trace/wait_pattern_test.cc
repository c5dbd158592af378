// How the consumer's waits fall over its steps: long before every N-th batch where a
// DataLoader's N workers finish their batches together, spread where they are not.
#include "instrumentation/trace/wait_pattern.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace pipescope::trace {
namespace {

// The consumer waits `waits` ns one after another, a 1 ms step after each; a wait of -1 is
// the one that found the end of the data (no element).
std::unique_ptr<Model> Waits(const std::vector<int64_t>& waits) {
  auto owned = std::make_unique<Model>();
  Model& m = *owned;
  m.AddThread({1, "consumer"});
  int64_t t = 0;
  uint64_t element = 1;
  for (const int64_t w : waits) {
    const int64_t length = std::max<int64_t>(0, w);
    m.AddEvent({t, t + length, w < 0 ? 0 : element++, 0, 1, record::kConsumerOp,
                record::EventKind::kInputWait, 0});
    t += length + 1'000'000;
  }
  m.Finish();
  return owned;
}

TEST(WaitPatternTest, FourWorkersFinishingTogetherMakeEveryFourthBatchWait) {
  std::vector<int64_t> waits;
  for (int group = 0; group < 6; ++group) {
    waits.insert(waits.end(), {10'000'000'000, 2'000, 1'000, 3'000});
  }
  waits.push_back(-1);
  const auto m = Waits(waits);
  const WaitPattern p = WaitPatternOf(*m, 0, m->duration_ns() + 1);
  EXPECT_EQ(p.waits, 24) << "the wait that found the end is no batch's";
  EXPECT_EQ(p.long_waits, 6);
  EXPECT_EQ(p.long_wait_ns, 10'000'000'000);
  EXPECT_GT(p.long_share, 0.99);
  EXPECT_EQ(LongWaitEvery(p), 4);
}

TEST(WaitPatternTest, WaitsSpreadOverTheStepsAreNoPattern) {
  const auto even = Waits(std::vector<int64_t>(20, 5'000'000));
  EXPECT_EQ(LongWaitEvery(WaitPatternOf(*even, 0, even->duration_ns())), 0) << "every wait long";
  // Long ones among waits that hold much of the time too: not nearly all the waiting.
  std::vector<int64_t> mixed;
  for (int group = 0; group < 6; ++group) mixed.insert(mixed.end(), {10'000, 4'000, 4'000});
  const auto m = Waits(mixed);
  EXPECT_EQ(LongWaitEvery(WaitPatternOf(*m, 0, m->duration_ns())), 0);
  // Two long waits are no pattern yet (a run's first batches).
  const auto two = Waits({9'000'000, 1, 1, 9'000'000, 1, 1});
  EXPECT_EQ(LongWaitEvery(WaitPatternOf(*two, 0, two->duration_ns())), 0);
  const auto none = Waits({});
  EXPECT_EQ(WaitPatternOf(*none, 0, 1).waits, 0);
}

}  // namespace
}  // namespace pipescope::trace
