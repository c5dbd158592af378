// Calibration's checks against a simulation of its fit. Matching spans: a map that ran
// without being time-sliced in the recorded run is sliced by the simulator's even sharing
// of the cores; its cost is scaled until its simulated time per element is the recorded
// one, and maps not named are left alone. Start-up: the simulation starts as late as the
// recorded run's first step says.
#include "app/session/simulated_fit.h"

#include <gtest/gtest.h>

#include "../engine/test_support.h"
#include "engine/sim/simulator.h"

namespace pipescope::session {
namespace {

using engine::testing::Spec;

// Three CPU-bound maps, one thread each, on two cores with a device that never waits: the
// simulator slices every map.
const char* kSpec = R"(name: "three_maps"
  source { name: "ids" range { start: 0 stop: 100000000 } }
  ops { name: "a" map { fn { cpu_work { duration: "400us" } } num_parallel_calls: 1 } }
  ops { name: "b" map { fn { cpu_work { duration: "300us" } } num_parallel_calls: 1 } }
  ops { name: "c" map { fn { cpu_work { duration: "200us" } } num_parallel_calls: 1 } }
  ops { name: "prefetch" prefetch { buffer_size: 2 } }
  train_step { step_time: "0s" device: simulated })";

// 2 s of the spec simulated with `model`.
std::unique_ptr<trace::Model> Simulated(const spec::PipelineSpec& spec,
                                        const sim::CostModel& model) {
  auto trace = std::make_unique<trace::Model>();
  sim::SimulationOptions options;
  options.duration_s = 2;
  options.sinks = {trace.get()};
  EXPECT_TRUE(sim::Simulate(spec, model, options).ok());
  return trace;
}

// The "recorded" run: the same costs on six cores, so no map was sliced and each one's
// spans are its cost.
std::unique_ptr<trace::Model> UnslicedRun(const spec::PipelineSpec& spec) {
  auto model = sim::DefaultCostModel(spec, 6);
  EXPECT_TRUE(model.ok());
  return Simulated(spec, *model);
}

// The model for two cores, before matching.
sim::CostModel TwoCores(const spec::PipelineSpec& spec) {
  auto model = sim::DefaultCostModel(spec, 2);
  EXPECT_TRUE(model.ok());
  return *model;
}

TEST(SimulatedFitTest, ScalesANamedMapUntilItsSimulatedSpansMatchTheRecordedOnes) {
  const spec::PipelineSpec spec = Spec(kSpec);
  auto recorded = UnslicedRun(spec);
  sim::CostModel model = TwoCores(spec);
  const double a_before = model.Of("a").cpu_per_row.mean_ns;
  const double b_before = model.Of("b").cpu_per_row.mean_ns;
  std::vector<std::string> notes;
  MatchSimulatedSpans(*recorded, spec, {"a"}, model, notes);

  // On two cores "a" shares with "b", "c" and the loop: to take 400 us per element it must
  // cost less than that.
  const double a_after = model.Of("a").cpu_per_row.mean_ns;
  EXPECT_LT(a_after, 0.95 * a_before);
  EXPECT_GT(a_after, 0.5 * a_before);
  EXPECT_EQ(model.Of("b").cpu_per_row.mean_ns, b_before);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("a: CPU per element x0."), std::string::npos) << notes[0];

  // The matched model's simulated spans of "a" are the recorded 400 us, within 3%.
  auto check = Simulated(spec, model);
  const uint16_t a = check->StageNamed("a")->id;
  double total = 0;
  int64_t n = 0;
  for (const trace::Track* t : check->TracksOf(record::EventKind::kWork, a)) {
    for (size_t i = t->size() / 4; i < t->size(); ++i) total += static_cast<double>(t->duration(i));
    n += t->CallsIn(t->size() / 4, t->size());
  }
  ASSERT_GT(n, 100);
  EXPECT_NEAR(total / static_cast<double>(n), 400e3, 400e3 * 0.03);
}

TEST(SimulatedFitTest, TheStartUpIsHowMuchLaterTheRecordedFirstStepCame) {
  // A "recorded" run that started 200 ms late: the fit finds those 200 ms (the same costs
  // and seed fill the pipeline in the same time), and a simulation with the fitted model
  // makes its first step when the recorded run did.
  const spec::PipelineSpec spec = Spec(kSpec);
  sim::CostModel late = TwoCores(spec);
  late.startup_ns = 200'000'000;
  auto recorded = Simulated(spec, late);
  sim::CostModel model = TwoCores(spec);
  std::vector<std::string> notes;
  FitStartup(*recorded, spec, model, notes);
  EXPECT_EQ(model.startup_ns, 200'000'000);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("200.0 ms later than the costs alone give"), std::string::npos)
      << notes[0];
  auto again = Simulated(spec, model);
  const auto& steps = again->TracksOf(record::EventKind::kStep, record::kDeviceOp);
  const auto& recorded_steps = recorded->TracksOf(record::EventKind::kStep, record::kDeviceOp);
  ASSERT_EQ(steps.size(), 1u);
  ASSERT_EQ(recorded_steps.size(), 1u);
  EXPECT_EQ(steps[0]->first_start(), recorded_steps[0]->first_start());
}

TEST(SimulatedFitTest, LeavesTheModelAsItIsWhenNoMapIsNamed) {
  const spec::PipelineSpec spec = Spec(kSpec);
  auto recorded = UnslicedRun(spec);
  sim::CostModel model = TwoCores(spec);
  const double before = model.Of("a").cpu_per_row.mean_ns;
  std::vector<std::string> notes;
  MatchSimulatedSpans(*recorded, spec, {}, model, notes);
  EXPECT_EQ(model.Of("a").cpu_per_row.mean_ns, before);
  EXPECT_TRUE(notes.empty());
}

// A Python map of four threads in one process beside the training loop: its calls take
// turns under the interpreter lock for the share of their CPU that holds it.
const char* kPythonSpec = R"(name: "python_map"
  source { name: "ids" range { start: 0 stop: 100000000 } }
  ops { name: "py" map { fn { python { duration: "1ms" gil_share: 1 } } num_parallel_calls: 4 } }
  ops { name: "batch" batch { batch_size: 8 } }
  ops { name: "prefetch" prefetch { buffer_size: 2 } }
  train_step { step_time: "1ms" device: simulated })";

// A run whose Python held the lock for 70% of its CPU, where the spec says 100%: the lock,
// not the two cores, sets the pace (0.7 ms of each element's 1 ms under it), and the fit
// reads 70% from the workers' time per element, their waits for the lock included.
TEST(SimulatedFitTest, PythonsShareUnderTheLockIsReadFromItsRecordedWaits) {
  const spec::PipelineSpec spec = Spec(kPythonSpec);
  sim::CostModel truth = TwoCores(spec);
  ASSERT_EQ(truth.Of("py").gil_share, 1);
  truth.ops["py"].gil_share = 0.7;
  auto recorded = Simulated(spec, truth);
  ASSERT_FALSE(
      recorded->TracksOf(record::EventKind::kLockWait, recorded->StageNamed("py")->id).empty());
  sim::CostModel model = TwoCores(spec);
  std::vector<std::string> notes;
  FitInterpreterLock(*recorded, spec, model, notes);
  EXPECT_NEAR(model.Of("py").gil_share, 0.7, 0.05);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("py: gil_share 0.7"), std::string::npos) << notes[0];
}

// One thread of Python with nothing else running Python beside it never waits for the lock,
// whatever its share: the share cannot be read, and the spec's stays.
TEST(SimulatedFitTest, ALoneThreadOfPythonKeepsTheSpecsShare) {
  std::string text = kPythonSpec;
  text.replace(text.find("num_parallel_calls: 4"), 21, "num_parallel_calls: 1");
  const spec::PipelineSpec spec = Spec(text);
  sim::CostModel truth = TwoCores(spec);
  truth.ops["py"].gil_share = 0.4;
  auto recorded = Simulated(spec, truth);
  sim::CostModel model = TwoCores(spec);
  std::vector<std::string> notes;
  FitInterpreterLock(*recorded, spec, model, notes);
  EXPECT_EQ(model.Of("py").gil_share, 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("py: no thread of it waited for the interpreter lock, so the share"),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[0].find("kept gil_share 1.00"), std::string::npos) << notes[0];
}

}  // namespace
}  // namespace pipescope::session
