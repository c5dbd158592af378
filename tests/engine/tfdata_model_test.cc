// tf.data's AUTOTUNE model as re-implemented: the M/M/1/K wait time, output times of
// small chains by the node formulas, and the hill-climb raising the knob that helps most
// until the model's output time is under the CPU bound.
#include "engine/tuning/tfdata_model.h"

#include <gtest/gtest.h>

namespace pipescope::engine::tfdata {
namespace {

TEST(TfDataModelTest, WaitTimeFollowsTheMm1kQueue) {
  EXPECT_DOUBLE_EQ(WaitTime(5, 0, 3), 5) << "a consumer that never pauses waits the full time";
  EXPECT_DOUBLE_EQ(WaitTime(0, 5, 3), 0);
  EXPECT_DOUBLE_EQ(WaitTime(4, 4, 3), 1) << "rho = 1: P / (b + 1)";
  // rho = 2, b = 1: p_empty = (1 - 2) / (1 - 4) = 1/3.
  EXPECT_NEAR(WaitTime(10, 5, 1), 10.0 / 3, 1e-12);
  // A fast producer (rho = 0.5) behind a buffer of 2: (0.5) / (1 - 0.125) = 4/7 of P.
  EXPECT_NEAR(WaitTime(5, 10, 2), 5 * 0.5 / 0.875, 1e-12);
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

TEST(TfDataModelTest, AnAsyncMapsOutputTimeIsTheWaitForItsProducer) {
  // P = 12000 / 1 + T_read = 12100, consumer every 5000, buffer = parallelism = 1.
  const double rho = 12100.0 / 5000;
  EXPECT_NEAR(OutputTime(SourceAndMap(12000, 1), 5000), 12100 * (1 - rho) / (1 - rho * rho), 1e-6);
  EXPECT_LT(OutputTime(SourceAndMap(12000, 4), 5000), OutputTime(SourceAndMap(12000, 2), 5000));
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

}  // namespace
}  // namespace pipescope::engine::tfdata
