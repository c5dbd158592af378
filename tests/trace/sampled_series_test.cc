// Sampled series over a window: a level weighed by the time it held, an amount per interval
// shared with the window in proportion to their overlap.
#include "instrumentation/trace/sampled_series.h"

#include <gtest/gtest.h>

namespace pipescope::trace {
namespace {

using record::EventKind;

Track Points(std::initializer_list<std::pair<int64_t, uint32_t>> points) {
  Track t({EventKind::kBufferLevel, 1, 0});
  for (const auto& [time, value] : points) t.Append(time, time, 0, value);
  return t;
}

// Points come when a level changes: a burst of changes must not outweigh a long stretch.
TEST(MeanLevelTest, WeighsEachLevelByTheTimeItHeld) {
  // 10 for 90 ns, then 0, 1, 0 for 10 ns in all.
  const Track t = Points({{0, 10}, {90, 0}, {93, 1}, {96, 0}});
  EXPECT_NEAR(*MeanLevel(t, 0, 100), (10.0 * 90 + 1.0 * 3) / 100, 1e-9);
}

TEST(MeanLevelTest, TheLevelBeforeTheWindowHoldsAtItsStart) {
  const Track t = Points({{0, 4}, {50, 8}});
  EXPECT_NEAR(*MeanLevel(t, 40, 60), 6.0, 1e-9);  // 4 for 10 ns, 8 for 10 ns
  EXPECT_NEAR(*MeanLevel(t, 100, 200), 8.0, 1e-9);
}

TEST(MeanLevelTest, StartsAtTheFirstPointWhenNoneCameBefore) {
  const Track t = Points({{50, 2}, {75, 4}});
  EXPECT_NEAR(*MeanLevel(t, 0, 100), 3.0, 1e-9);
  EXPECT_FALSE(MeanLevel(t, 0, 50).has_value());
  EXPECT_FALSE(MeanLevel(Track({EventKind::kBufferLevel, 1, 0}), 0, 50).has_value());
}

// Uniform samples (traces recorded before levels came on change) read as their mean.
TEST(MeanLevelTest, UniformSamplesReadAsTheirMean) {
  const Track t = Points({{0, 1}, {10, 2}, {20, 3}, {30, 6}});
  EXPECT_NEAR(*MeanLevel(t, 0, 40), 3.0, 1e-9);
}

TEST(AmountInTest, SharesEachIntervalWithTheWindowByOverlap) {
  // 100 since 0 at 50, 300 since 50 at 100.
  const Track t = Points({{50, 100}, {100, 300}});
  EXPECT_NEAR(AmountIn(t, 0, 100), 400.0, 1e-9);
  EXPECT_NEAR(AmountIn(t, 25, 75), 50.0 + 150.0, 1e-9);
  EXPECT_NEAR(AmountIn(t, 90, 1000), 60.0, 1e-9);
  EXPECT_NEAR(AmountIn(t, 100, 1000), 0.0, 1e-9);
}

// The first point's interval is taken as long as the next one's.
TEST(AmountInTest, TheFirstPointStandsForAnIntervalAsLongAsTheNext) {
  const Track t = Points({{100, 50}, {200, 100}});
  EXPECT_NEAR(AmountIn(t, 0, 200), 150.0, 1e-9);
  EXPECT_NEAR(AmountIn(t, 50, 100), 25.0, 1e-9);
  EXPECT_NEAR(AmountIn(Points({{100, 7}}), 0, 200), 7.0, 1e-9);
  EXPECT_NEAR(AmountIn(Points({{100, 7}}), 0, 100), 0.0, 1e-9);
}

}  // namespace
}  // namespace pipescope::trace
