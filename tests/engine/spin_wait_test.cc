// AdaptiveSpin: how a waiting point's spin budget follows the waits it sees. Durations are
// given, not measured: the rule is tested apart from the clock.
#include "engine/runtime/spin_wait.h"

#include <gtest/gtest.h>

#include <chrono>

namespace pipescope::engine {
namespace {

using std::chrono::microseconds;

// A spin whose condition comes true on its `ready_on`-th check (never when 0); returns how
// many checks it made.
int Spin(AdaptiveSpin& spin, int ready_on, bool* ended = nullptr) {
  int checks = 0;
  const bool done = spin.SpinUntil([&] { return ++checks == ready_on; });
  if (ended != nullptr) *ended = done;
  return checks;
}

// A wait the spin did not end and that lasted far longer than a full-budget spin (a
// producer that takes milliseconds per element).
void LongWait(AdaptiveSpin& spin) {
  Spin(spin, 0);
  spin.JudgeWait(microseconds(1), microseconds(1'000'000));
}

TEST(AdaptiveSpinTest, LongWaitsHalveTheBudgetDownToTheFloor) {
  AdaptiveSpin spin;
  bool ended = true;
  EXPECT_EQ(Spin(spin, 0, &ended), AdaptiveSpin::kMaxIterations);
  EXPECT_FALSE(ended);
  spin.JudgeWait(microseconds(50), microseconds(5'000));
  EXPECT_EQ(Spin(spin, 0), AdaptiveSpin::kMaxIterations / 2);
  spin.JudgeWait(microseconds(25), microseconds(5'000));
  EXPECT_EQ(spin.budget(), AdaptiveSpin::kMaxIterations / 4);
  for (int i = 0; i < 20; ++i) LongWait(spin);
  EXPECT_EQ(spin.budget(), AdaptiveSpin::kMinIterations);
  EXPECT_EQ(Spin(spin, 0), AdaptiveSpin::kMinIterations);
}

TEST(AdaptiveSpinTest, AWaitThatSpinningEndedDoublesTheBudgetUpToTheCeiling) {
  AdaptiveSpin spin;
  for (int i = 0; i < 20; ++i) LongWait(spin);
  ASSERT_EQ(spin.budget(), AdaptiveSpin::kMinIterations);
  bool ended = false;
  EXPECT_EQ(Spin(spin, 3, &ended), 3);  // a hand-off already under way is still caught
  EXPECT_TRUE(ended);
  EXPECT_EQ(spin.budget(), 2 * AdaptiveSpin::kMinIterations);
  for (int i = 0; i < 20; ++i) Spin(spin, 1);
  EXPECT_EQ(spin.budget(), AdaptiveSpin::kMaxIterations);
}

// The case that keeps a quick hand-off quick: at a short budget, the wake-up after a sleep
// outlasts the spin, but the wait was still shorter than a full-budget spin, so spinning
// pays and the budget grows back.
TEST(AdaptiveSpinTest, AWaitShorterThanAFullBudgetSpinGrowsTheBudgetEvenWhenItEndedAsleep) {
  AdaptiveSpin spin;
  for (int i = 0; i < 20; ++i) LongWait(spin);
  ASSERT_EQ(spin.budget(), AdaptiveSpin::kMinIterations);
  // 16 spins took 0.4 us, so 2000 would take 50 us; the element came after 5 us.
  Spin(spin, 0);
  spin.JudgeWait(std::chrono::nanoseconds(400), std::chrono::nanoseconds(5'000));
  EXPECT_EQ(spin.budget(), 2 * AdaptiveSpin::kMinIterations);
  // 32 spins took 0.8 us (50 us for a full budget); a wait of exactly 50 us still grows it,
  // one of 51 us halves it.
  Spin(spin, 0);
  spin.JudgeWait(std::chrono::nanoseconds(800), std::chrono::nanoseconds(50'000));
  EXPECT_EQ(spin.budget(), 4 * AdaptiveSpin::kMinIterations);
  Spin(spin, 0);
  spin.JudgeWait(std::chrono::nanoseconds(1'600), std::chrono::nanoseconds(51'000));
  EXPECT_EQ(spin.budget(), 2 * AdaptiveSpin::kMinIterations);
}

// A wait that a spin of the full budget did not end was longer than such a spin, whatever
// the clock says: it halves the budget.
TEST(AdaptiveSpinTest, AWaitThatOutlastedAFullBudgetSpinHalvesTheBudget) {
  AdaptiveSpin spin;
  Spin(spin, 0);
  spin.WaitEnded();
  EXPECT_EQ(spin.budget(), AdaptiveSpin::kMaxIterations / 2);
}

TEST(AdaptiveSpinTest, AConditionTrueOnTheLastCheckOfTheBudgetCountsAsEndedBySpinning) {
  AdaptiveSpin spin;
  LongWait(spin);
  const int budget = spin.budget();
  bool ended = false;
  EXPECT_EQ(Spin(spin, budget, &ended), budget);
  EXPECT_TRUE(ended);
  EXPECT_EQ(spin.budget(), 2 * budget);
  EXPECT_EQ(Spin(spin, 2 * budget + 1, &ended), 2 * budget);  // one check too late
  EXPECT_FALSE(ended);
}

}  // namespace
}  // namespace pipescope::engine
