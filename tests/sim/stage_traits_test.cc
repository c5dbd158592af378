// What each stage of a trace says it does (record::StageTrait), the fact lineage, the
// verdict and calibration read instead of kind names: both clocks say the same of every
// stage, what they say follows the op kind's description, it survives a .pstrace, and a
// file written before stages carried traits reads them from its kinds.
#include <gtest/gtest.h>

#include <map>

#include "../engine/test_support.h"
#include "engine/sim/simulator.h"
#include "instrumentation/trace/format/model_writer.h"
#include "instrumentation/trace/format/trace_reader.h"

namespace pipescope {
namespace {

using namespace record;  // NOLINT(google-build-using-namespace): the trait names

// The spec that wrote tests/trace/data/recorded_before_stage_traits.pstrace.
const char* kSpec = R"(
name: "legacy_traits"
source { name: "src" range { start: 0 stop: 24 } }
ops { name: "files" interleave { per_element { from_element {} } cycle_length: 2 num_parallel_calls: 2 } }
ops { name: "work" map { fn { cpu_work { duration: "10us" } } num_parallel_calls: 2 } }
ops { name: "keep" cache {} }
ops { name: "batch" batch { batch_size: 4 } }
ops { name: "rows" unbatch {} }
ops { name: "again" batch { batch_size: 6 } }
ops { name: "prefetch" prefetch { buffer_size: 2 } }
train_step { step_time: "1ms" }
)";

const std::map<std::string, uint32_t> kExpected = {
    {"src", kTraitSource},
    {"files", kTraitParallelReads},
    {"files.from_element", kTraitSource},
    {"work", kTraitParallelFunction},
    {"keep", kTraitReplays},
    {"batch", kTraitBatches},
    {"rows", kTraitUnbatches},
    {"again", kTraitBatches},
    {"prefetch", kTraitOneProducer},
};

std::map<std::string, uint32_t> TraitsByName(const trace::Model& model) {
  std::map<std::string, uint32_t> out;
  for (const StageDef* s : model.StagesInOrder()) out[s->name] = s->traits;
  return out;
}

std::unique_ptr<trace::Model> Simulated(const char* text = kSpec) {
  const spec::PipelineSpec spec = engine::testing::Spec(text);
  auto costs = sim::DefaultCostModel(spec, 2);
  EXPECT_TRUE(costs.ok());
  auto model = std::make_unique<trace::Model>();
  sim::SimulationOptions options;
  options.duration_s = 1;
  options.sinks = {model.get()};
  EXPECT_TRUE(sim::Simulate(spec, *costs, options).ok());
  return model;
}

TEST(StageTraitsTest, BothClocksSayWhatEachStageDoes) {
  auto run = engine::testing::MakeRecordedPipeline(kSpec);
  ASSERT_TRUE(run.pipeline);
  engine::testing::Drain(*run.pipeline);
  run.Finish();
  EXPECT_EQ(TraitsByName(*run.model), kExpected) << "engine";
  EXPECT_EQ(TraitsByName(*Simulated()), kExpected) << "simulator";
}

// deterministic=False (map, interleave) and in_order=False (a DataLoader) hand on whichever
// element is ready first: the verdict does not ask for what the op already does.
TEST(StageTraitsTest, AnOpThatTakesWhicheverIsReadyFirstSaysSo) {
  const char* unordered = R"(
name: "first_ready"
source { name: "src" range { start: 0 stop: 24 } }
ops { name: "files" interleave { per_element { from_element {} } cycle_length: 2 num_parallel_calls: 2 deterministic: false } }
ops { name: "work" map { fn { cpu_work { duration: "10us" } } num_parallel_calls: 2 deterministic: false } }
ops { name: "ordered" map { fn { cpu_work { duration: "10us" } } num_parallel_calls: 2 deterministic: true } }
train_step { step_time: "1ms" }
)";
  const std::map<std::string, uint32_t> expected = {
      {"src", kTraitSource},
      {"files", kTraitParallelReads | kTraitFirstReady},
      {"files.from_element", kTraitSource},
      {"work", kTraitParallelFunction | kTraitFirstReady},
      {"ordered", kTraitParallelFunction},
  };
  auto run = engine::testing::MakeRecordedPipeline(unordered);
  ASSERT_TRUE(run.pipeline);
  engine::testing::Drain(*run.pipeline);
  run.Finish();
  EXPECT_EQ(TraitsByName(*run.model), expected) << "engine";
  EXPECT_EQ(TraitsByName(*Simulated(unordered)), expected) << "simulator";
}

TEST(StageTraitsTest, ASavedTraceKeepsThem) {
  const auto model = Simulated();
  // A kind no build before traits knew: only the file's own field can say what it does.
  StageDef later;
  later.id = 100;
  later.name = "pad";
  later.kind = "a_kind_added_later";
  later.traits = kTraitBatches;
  model->AddStage(later);
  const std::string path = ::testing::TempDir() + "/pipescope_stage_traits.pstrace";
  ASSERT_TRUE(pstrace::WriteModel(*model, path).ok());
  auto loaded = pstrace::ReadTraceFile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  auto expected = kExpected;
  expected["pad"] = kTraitBatches;
  EXPECT_EQ(TraitsByName(*loaded->model), expected);
}

TEST(StageTraitsTest, AFileWrittenBeforeTraitsReadsThemFromItsKinds) {
  auto loaded = pstrace::ReadTraceFile(std::string(PIPESCOPE_TEST_DATA) +
                                       "/recorded_before_stage_traits.pstrace");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(TraitsByName(*loaded->model), kExpected);
}

}  // namespace
}  // namespace pipescope
