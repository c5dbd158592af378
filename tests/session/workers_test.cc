// Several data-parallel workers of one job (workers.h): each runs its own pipeline with its
// shard's index, so that together they read every element once; on the engine they run at
// once, and a worker that would have no shard of its own is refused, naming the op.
#include "app/session/workers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include "../engine/test_support.h"
#include "engine/sim/sim_values.h"

namespace pipescope::session {
namespace {

using engine::testing::Spec;

const char* kSharded = R"(
    name: "sharded" source { name: "src" range { stop: 12 } }
    ops { name: "shard" shard { num_shards: 3 index: 0 } }
    ops { name: "work" map { fn { cpu_work { duration: "100us" } } num_parallel_calls: 2 } }
    train_step { step_time: "1ms" })";

TEST(WorkersTest, EachWorkerReadsItsOwnShardAndTogetherTheyReadEverything) {
  const spec::PipelineSpec spec = Spec(kSharded);
  std::mutex mu;
  std::vector<std::vector<int64_t>> seen(3);
  auto run = RunWorkersRecorded(spec, 3, [&](int w) {
    RecordedRunOptions o;
    o.run.duration_ns = 10'000'000'000;  // ends with the data
    o.run.on_element = [&, w](const engine::Element& e) {
      const std::lock_guard lock(mu);
      seen[static_cast<size_t>(w)].push_back(e.value.scalar_int64());
    };
    return o;
  });
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->workers.size(), 3U);
  std::vector<int64_t> all;
  for (int w = 0; w < 3; ++w) {
    EXPECT_TRUE(run->workers[static_cast<size_t>(w)].summary.end_of_data);
    EXPECT_EQ(seen[static_cast<size_t>(w)], (std::vector<int64_t>{w, w + 3, w + 6, w + 9}))
        << "worker " << w << " reads index " << w << " of every 3";
    all.insert(all.end(), seen[static_cast<size_t>(w)].begin(), seen[static_cast<size_t>(w)].end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all.size(), 12U);
  EXPECT_TRUE(std::adjacent_find(all.begin(), all.end()) == all.end()) << "no element twice";
  EXPECT_GT(run->total_steps_per_s, 0);
  ASSERT_EQ(run->figures.size(), 3U);
  const double slowest = run->figures[static_cast<size_t>(run->slowest)].steps_per_s;
  for (const auto& f : run->figures) EXPECT_GE(f.steps_per_s, slowest);
  EXPECT_DOUBLE_EQ(run->synchronous_steps_per_s, 3 * slowest);
  // Each worker's trace weighs its threads against its share of the host's cores.
  const trace::MachineInfo& machine = run->workers[0].model->run_info().machine;
  EXPECT_EQ(machine.cpu_budget, std::max(1, machine.cpu_cores / 3));
}

TEST(WorkersTest, SimulatedWorkersShareTheHostsCoresAndReadTheirShards) {
  const spec::PipelineSpec spec = Spec(kSharded);
  auto model = sim::DefaultCostModel(spec, 4);
  ASSERT_TRUE(model.ok());
  auto run = RunWorkersSimulated(spec, *model, 2, [&](int) {
    SimulatedRunOptions o;
    o.sim.duration_s = 10;
    return o;
  });
  ASSERT_TRUE(run.ok()) << run.status().message();
  for (int w = 0; w < 2; ++w) {
    const RecordedRunResult& r = run->workers[static_cast<size_t>(w)];
    auto worker_spec = SpecForWorker(spec, w, 2);
    ASSERT_TRUE(worker_spec.ok());
    auto values = sim::ConsumedValues(*worker_spec, *r.model, 100);
    ASSERT_TRUE(values.ok()) << values.status().message();
    std::vector<int64_t> got;
    for (const auto& e : *values) got.push_back(e.value.scalar_int64());
    EXPECT_EQ(got, (std::vector<int64_t>{w, w + 3, w + 6, w + 9}));
    EXPECT_EQ(r.model->run_info().machine.cpu_budget, 2) << "4 cores shared by 2 workers";
  }
}

TEST(WorkersTest, AWorkerWithoutAShardOfItsOwnIsRefused) {
  const spec::PipelineSpec spec = Spec(kSharded);
  auto fourth = SpecForWorker(spec, 3, 4);
  ASSERT_FALSE(fourth.ok());
  EXPECT_NE(fourth.status().message().find("worker 3 of 4 has no shard of its own: 'shard' "
                                           "splits its input into num_shards 3"),
            std::string::npos)
      << fourth.status().message();
  auto second = SpecForWorker(spec, 1, 3);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->ops(0).shard().index(), 1);
  EXPECT_FALSE(RunWorkersSimulated(spec, *sim::DefaultCostModel(spec, 4), 0, [](int) {
                 return SimulatedRunOptions{};
               }).ok());
}

}  // namespace
}  // namespace pipescope::session
