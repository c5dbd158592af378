// How well a rate is known: Student's t, the batch-means interval of a run's steps, runs
// combined, and when a difference is beyond the noise. The expected figures are worked out
// by hand in the comments.
#include "instrumentation/trace/rate_interval.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pipescope::trace {
namespace {

TEST(RateIntervalTest, StudentsTQuantiles) {
  EXPECT_DOUBLE_EQ(StudentT95(1), 12.706);
  EXPECT_DOUBLE_EQ(StudentT95(9), 2.262);
  EXPECT_DOUBLE_EQ(StudentT95(30), 2.042);
  EXPECT_DOUBLE_EQ(StudentT95(1000), 1.96);
}

// `count` more starts, each `gap_ns` after the one before.
void Append(std::vector<int64_t>& starts, int64_t gap_ns, int count) {
  for (int i = 0; i < count; ++i) starts.push_back((starts.empty() ? 0 : starts.back()) + gap_ns);
}

TEST(RateIntervalTest, StepsOfOneLengthKnowTheirRateExactly) {
  std::vector<int64_t> starts{0};
  Append(starts, 10'000'000, 100);
  const RateInterval r = StartsInterval(starts, 100);
  EXPECT_DOUBLE_EQ(r.per_s, 100);
  EXPECT_DOUBLE_EQ(r.half_width, 0);
}

TEST(RateIntervalTest, ABatchOfSlowStepsWidensTheInterval) {
  // 100 gaps in 10 batches of 10: nine batches of 10 ms steps, one of 20 ms. The batch
  // means are 10 (nine times) and 20: mean 11, sample sd sqrt((9*1 + 81)/9) = sqrt(10),
  // half width of the mean gap 2.262 * sqrt(10) / sqrt(10) = 2.262 ms, 20.56% of 11 ms.
  std::vector<int64_t> starts{0};
  Append(starts, 10'000'000, 50);
  Append(starts, 20'000'000, 10);
  Append(starts, 10'000'000, 40);
  const double per_s = 1000.0 / 11;
  const RateInterval r = StartsInterval(starts, per_s);
  EXPECT_NEAR(r.half_width, per_s * 2.262 / 11, 1e-9);
}

TEST(RateIntervalTest, TwoStepsSayNothingAboutTheVariation) {
  EXPECT_DOUBLE_EQ(StartsInterval({0, 10}, 50).half_width, 50);
  EXPECT_DOUBLE_EQ(StartsInterval({}, 0).half_width, 0);
}

// Whole epochs are the batches: the steps within one (a burst after a fill) say nothing of
// the fills between them.
TEST(RateIntervalTest, EpochsAreTheBatchesOfARunThatComesInEpochs) {
  // Three epochs of 10 steps in 3 s each: known exactly.
  const RateInterval same = PeriodsInterval({0, 3, 6, 9}, {10, 10, 10}, 10.0 / 3);
  EXPECT_NEAR(same.half_width, 0, 1e-12);
  // One of them took 4 s: mean gap 1/3 s, sd of (0.3, 0.3, 0.4) = 0.0577, t(2) = 4.303.
  const RateInterval slow = PeriodsInterval({0, 3, 6, 10}, {10, 10, 10}, 3);
  EXPECT_NEAR(slow.half_width, 3 * (4.303 * 0.057735 / std::sqrt(3.0)) / (1.0 / 3), 1e-3);
  // One epoch says nothing about their variation.
  EXPECT_EQ(PeriodsInterval({0, 3}, {10}, 10.0 / 3).half_width, 10.0 / 3);
}

TEST(RateIntervalTest, RepeatedRunsTakeTheWiderOfTheirSpreadAndTheirOwnIntervals) {
  // 100, 110, 105: mean 105, sd 5, half width 4.303 * 5 / sqrt(3) = 12.42; their own
  // intervals of 1 give sqrt(3) / 3 = 0.58 for the mean.
  const RateInterval spread = CombineRuns({{100, 1}, {110, 1}, {105, 1}});
  EXPECT_DOUBLE_EQ(spread.per_s, 105);
  EXPECT_NEAR(spread.half_width, 4.303 * 5 / std::sqrt(3.0), 1e-9);
  EXPECT_EQ(spread.runs, 3);
  // The same rate three times, each ± 6: the runs' own noise, 6 * sqrt(3) / 3.
  const RateInterval alike = CombineRuns({{100, 6}, {100, 6}, {100, 6}});
  EXPECT_NEAR(alike.half_width, 6 * std::sqrt(3.0) / 3, 1e-9);
}

TEST(RateIntervalTest, FasterOnlyBeyondBothIntervalsAndTheLeastGain) {
  EXPECT_TRUE(ClearlyFaster({110, 2}, {100, 2}, 0.02)) << "10 > hypot(2, 2) = 2.83";
  EXPECT_FALSE(ClearlyFaster({103, 5}, {100, 5}, 0.02)) << "3 < hypot(5, 5) = 7.07";
  EXPECT_FALSE(ClearlyFaster({101, 0}, {100, 0}, 0.02)) << "exact, but under 2%";
  EXPECT_FALSE(ClearlyFaster({90, 1}, {100, 1}, 0.02));
}

}  // namespace
}  // namespace pipescope::trace
