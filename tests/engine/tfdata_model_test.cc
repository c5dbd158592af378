// tf.data's AUTOTUNE model as re-implemented: the M/M/1/K wait time, output times of
// small chains by the node formulas, and the hill-climb raising the knob that helps most
// until the model's output time is under the CPU bound.
#include "engine/tuning/tfdata_model.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pipescope::engine::tfdata {
namespace {

TEST(TfDataModelTest, WaitTimeFollowsTheMm1kQueue) {
  EXPECT_DOUBLE_EQ(WaitTime(5, 0, 3), 5) << "a consumer that never pauses waits the full time";
  EXPECT_DOUBLE_EQ(WaitTime(0, 5, 3), 0);
  EXPECT_DOUBLE_EQ(WaitTime(4, 4, 3), 1) << "rho = 1: P / (b + 1)";
  // A slow producer (rho = c / P = 0.5), b = 1: p_empty = (1 - 0.5) / (1 - 0.25) = 2/3.
  EXPECT_NEAR(WaitTime(10, 5, 1), 10.0 * 2 / 3, 1e-12);
  // A fast producer (rho = 2) behind a buffer of 2: (1 - 2) / (1 - 8) = 1/7 of P.
  EXPECT_NEAR(WaitTime(5, 10, 2), 5.0 / 7, 1e-12);
  EXPECT_GT(WaitTime(1000, 1, 1), 999) << "a consumer far faster than its producer waits ~P";
  EXPECT_LT(WaitTime(1, 1000, 4), 1e-9) << "and far slower, almost never";
  EXPECT_LT(WaitTime(5, 10, 8), WaitTime(5, 10, 2)) << "a deeper buffer waits less";
}

Chain SourceAndMap(double map_self_ns, int64_t parallelism) {
  Chain c;
  c.nodes.push_back({"read", NodeKind::kSource, 100});
  Node map{"decode", NodeKind::kAsync, map_self_ns, 1};
  map.parallelism_tunable = true;
  map.parallelism = parallelism;
  map.buffer = 0;
  c.nodes.push_back(map);
  return c;
}

TEST(TfDataModelTest, AnAsyncMapsOutputTimeIsItsShareOfWorkPlusTheWaitForItsProducer) {
  // T = s / p + Wait(T_read, c + s / p, p): a fast source (100) behind a map of 12000 with
  // one worker, asked every 5000: the map's buffer consumer comes every 17000.
  EXPECT_NEAR(OutputTime(SourceAndMap(12000, 1), 5000), 12000 + WaitTime(100, 17000, 1), 1e-9);
  EXPECT_LT(OutputTime(SourceAndMap(12000, 4), 5000), OutputTime(SourceAndMap(12000, 2), 5000));
  // A slow source shows through the buffer: its wait grows with its time.
  Chain slow = SourceAndMap(1000, 1);
  slow.nodes[0].self_ns = 20000;
  EXPECT_GT(OutputTime(slow, 5000), 1000 + 0.5 * 20000);
}

TEST(TfDataModelTest, ASyncBatchMultipliesItsInputsTime) {
  Chain c;
  c.nodes.push_back({"read", NodeKind::kSource, 100});
  c.nodes.push_back({"batch", NodeKind::kSync, 50, 4});
  EXPECT_DOUBLE_EQ(OutputTime(c, 1000), 50 + 4 * 100);
  EXPECT_DOUBLE_EQ(TotalProcessingTime(c), 50 + 4 * 100);
}

TEST(TfDataModelTest, HillClimbRaisesTheParallelismThatHelpsUntilTheCpuBound) {
  Budget budget;
  budget.cores = 8;
  const Chain tuned = HillClimb(SourceAndMap(12000, 1), 5000, budget);
  const int64_t p = tuned.nodes[1].parallelism;
  EXPECT_GE(p, 3);
  EXPECT_LE(p, 8) << "each parallelism is capped at the CPU budget";
  EXPECT_LT(OutputTime(tuned, 5000), OutputTime(SourceAndMap(12000, p - 1), 5000));
  // One core: the CPU bound (12.1 us of work per element) is reached at once.
  budget.cores = 1;
  EXPECT_EQ(HillClimb(SourceAndMap(12000, 1), 5000, budget).nodes[1].parallelism, 1);
}

TEST(TfDataModelTest, HillClimbExplainsEachStepAndWhyItStopped) {
  Budget budget;
  budget.cores = 8;
  std::vector<std::string> steps;
  const Chain tuned = HillClimb(SourceAndMap(12000, 1), 5000, budget, 1 << 10, &steps);
  ASSERT_GE(steps.size(), 3u);
  EXPECT_NE(steps.front().find("the CPU bound"), std::string::npos) << steps.front();
  int raises = 0;
  for (const auto& s : steps) raises += s.rfind("raise ", 0) == 0;
  EXPECT_EQ(raises, tuned.nodes[1].parallelism - 1);  // one step per raise, from 1
  EXPECT_EQ(steps.back().rfind("stop: ", 0), 0u) << steps.back();
}

TEST(TfDataModelTest, TheInputBoundDemoGetsTheParallelismItsStepNeeds) {
  // read (0.1 ms) -> decode (3 ms, AUTOTUNE) -> batch 4 -> prefetch (AUTOTUNE), a step of
  // 8 ms: one decode worker makes a batch every 12 ms, two every 6 ms.
  Chain c = SourceAndMap(3e6, 1);
  c.nodes[0].self_ns = 1e5;
  c.nodes.push_back({"batch", NodeKind::kSync, 4e4, 4});
  Node prefetch{"prefetch", NodeKind::kAsync, 0, 1};
  prefetch.buffer_tunable = true;
  c.nodes.push_back(prefetch);
  Budget budget;
  budget.cores = 2;
  Chain tuned = HillClimb(c, 8e6, budget);
  EXPECT_EQ(tuned.nodes[1].parallelism, 2) << "the CPU bound (12.4 ms / 2 cores) stops it";
  budget.cores = 16;
  tuned = HillClimb(c, 8e6, budget);
  EXPECT_GE(tuned.nodes[1].parallelism, 3) << "with cores to spare it goes on below the wait";
  EXPECT_LE(tuned.nodes[1].parallelism, 16);
  EXPECT_LT(OutputTime(tuned, 8e6), 12.4e6 / 16);
}

TEST(TfDataModelTest, HillClimbStopsAtTheRamBudget) {
  Chain c = SourceAndMap(3e6, 1);
  c.nodes[1].bytes_per_element = 1e6;
  Budget budget;
  budget.cores = 64;
  budget.ram_bytes = 4e6;
  const Chain tuned = HillClimb(c, 1e5, budget);
  EXPECT_LE(tuned.nodes[1].parallelism, 5) << "one step past the budget at most, as tf.data";
}

}  // namespace
}  // namespace pipescope::engine::tfdata
