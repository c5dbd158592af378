// The plan both clocks build from: every knob resolved as the spec means it, whether each
// op takes and gives batches worked out once (by the rule the validator follows too), and
// what the validator refuses refused before either clock runs.
#include "engine/spec/pipeline_plan.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <optional>

#include "engine/spec/cardinality.h"
#include "engine/spec/spec_loader.h"
#include "test_support.h"

namespace pipescope::engine {
namespace {

using testing::Spec;

TEST(PipelinePlanTest, ResolvesEveryKnobAsTheSpecMeansIt) {
  const spec::PipelineSpec spec = Spec(R"(
    source { name: "files" range { start: 0 stop: 8 } }
    ops { name: "read" interleave { per_element { from_element {} } num_parallel_calls: AUTOTUNE } }
    ops { name: "decode" map { fn { cpu_work { duration: "1ms" } } num_parallel_calls: 3 } }
    ops { name: "epochs" repeat {} }
    ops { name: "head" take { count: -1 } }
    ops { name: "ahead" prefetch { buffer_size: AUTOTUNE } }
  )");
  auto plan = PlanPipeline(spec, 6);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->ops.size(), 5u);
  const PlannedOp& read = plan->ops[0];
  EXPECT_EQ(read.Knob("cycle_length").written, kAutotune) << "left out: AUTOTUNE";
  EXPECT_EQ(read.Knob("cycle_length").start, 6) << "at the CPU budget";
  EXPECT_EQ(read.Knob("block_length").start, 1) << "left out: 1";
  EXPECT_TRUE(read.Knob("num_parallel_calls").autotune());
  EXPECT_EQ(read.Knob("num_parallel_calls").start, 6);
  EXPECT_EQ(plan->ops[1].Knob("num_parallel_calls").start, 3);
  EXPECT_FALSE(plan->ops[1].Knob("num_parallel_calls").autotune());
  // -1 means forever and all where AUTOTUNE is not a value the knob takes.
  EXPECT_EQ(plan->ops[2].Knob("count").start, -1);
  EXPECT_FALSE(plan->ops[2].Knob("count").autotune());
  EXPECT_EQ(plan->ops[3].Knob("count").start, -1);
  EXPECT_EQ(plan->ops[4].Knob("buffer_size").start, 2) << "prefetch's AUTOTUNE starts at 2";
  EXPECT_EQ(read.depth, 0);
}

// An interleave's workers read one input of its cycle each: tf.data refuses more workers than
// the cycle holds, and its AUTOTUNE starts them no higher.
TEST(PipelinePlanTest, AnInterleavesWorkersAreNoMoreThanItsCycle) {
  const auto interleave = [](const std::string& knobs) {
    spec::PipelineSpec s;  // parsed only: the plan validates
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(
        R"(name: "t" source { name: "files" range { start: 0 stop: 8 } }
      ops { name: "read" interleave { per_element { from_element {} } )" +
            knobs + " } }",
        &s));
    return s;
  };
  auto capped = PlanPipeline(interleave("cycle_length: 4 num_parallel_calls: -1"), 16);
  ASSERT_TRUE(capped.ok()) << capped.status().message();
  EXPECT_EQ(capped->ops[0].Knob("num_parallel_calls").start, 4);
  auto refused = PlanPipeline(interleave("cycle_length: 4 num_parallel_calls: 8"), 16);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("must be ≤ cycle_length (4), got 8"), std::string::npos)
      << refused.status().message();
  EXPECT_TRUE(PlanPipeline(interleave("cycle_length: 8 num_parallel_calls: 8"), 16).ok());
  EXPECT_TRUE(PlanPipeline(interleave("num_parallel_calls: 8"), 4).ok()) << "cycle AUTOTUNE";
}

TEST(PipelinePlanTest, SaysWhichOpsTakeAndGiveBatches) {
  const spec::PipelineSpec spec = Spec(R"(
    source { name: "src" range { start: 0 stop: 64 } }
    ops { name: "b" batch { batch_size: 4 } }
    ops { name: "m" map { fn { cpu_work { duration: "1us" } } } }
    ops { name: "rows" unbatch {} }
    ops { name: "il" interleave { per_element { from_element {} }
          ops { name: "inner" batch { batch_size: 2 } } cycle_length: 2 } }
  )");
  auto plan = PlanPipeline(spec, 2);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const auto& ops = plan->ops;
  EXPECT_FALSE(ops[0].input_batched);
  EXPECT_TRUE(ops[0].output_batched);
  EXPECT_TRUE(ops[1].input_batched) << "a map after batch runs the batched form";
  EXPECT_FALSE(ops[2].output_batched);
  ASSERT_EQ(ops[3].sub.size(), 1u);
  EXPECT_EQ(ops[3].sub[0].depth, 1);
  EXPECT_FALSE(ops[3].sub[0].input_batched) << "a sub-pipeline starts from one element";
  EXPECT_TRUE(ops[3].output_batched) << "an interleave gives what its sub-pipeline gives";
  EXPECT_TRUE(plan->output_batched);
}

// tf.data's cardinality where the spec says it: a source's count through what each op keeps
// of it (take, shard's share, batch, repeat); nothing known after an endless repeat or a
// filter.
TEST(PipelinePlanTest, KnowsHowManyElementsEachOpTakesInAPass) {
  const spec::PipelineSpec spec = Spec(R"(
    source { name: "src" range { start: 0 stop: 10 } }
    ops { name: "m" map { fn { cpu_work { duration: "1us" } } } }
    ops { name: "t" take { count: 8 } }
    ops { name: "s" shard { num_shards: 3 index: 1 } }
    ops { name: "b" batch { batch_size: 2 } }
    ops { name: "r" repeat { count: 3 } }
    ops { name: "k" skip { count: 1 } }
    ops { name: "forever" repeat {} }
    ops { name: "last" prefetch { buffer_size: 1 } }
  )");
  auto plan = PlanPipeline(spec, 2);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<std::optional<int64_t>> in;
  for (const auto& op : plan->ops) in.push_back(op.input_elements);
  // shard(3, 1) of 8 keeps positions 1, 4, 7; batches of 2 make 2 of them; 3 passes, 1 skipped.
  EXPECT_EQ(in, (std::vector<std::optional<int64_t>>{10, 10, 8, 3, 2, 6, 5, std::nullopt}));
  const spec::PipelineSpec files = Spec(R"(
    source { name: "src" list_files { pattern: "/nonexistent/*" } }
    ops { name: "m" map { fn { cpu_work { duration: "1us" } } } }
  )");
  auto unknown = PlanPipeline(files, 2);
  ASSERT_TRUE(unknown.ok()) << unknown.status().message();
  EXPECT_FALSE(unknown->ops[0].input_elements.has_value()) << "files hold what they hold";
}

// An epoch's steps: the elements into the last repeat, then through the ops after it, fit's
// take of every epoch's steps apart (keras#6406: steps_per_epoch=91234 batches an epoch).
TEST(PipelinePlanTest, AnEpochsStepsAreThePassBeforeTheEpochsRepeat) {
  EXPECT_EQ(StepsOfAnEpoch(Spec(R"(
    source { name: "src" range { stop: 100 } }
    ops { name: "r" repeat { count: 10 } }
    ops { name: "b" batch { batch_size: 32 } }
  )")),
            4);
  EXPECT_EQ(StepsOfAnEpoch(Spec(R"(
    source { name: "indices" range { stop: 91234 } }
    ops { name: "fit" keras_fit { workers: 1 getitem { python { duration: "1ms" } } } }
    ops { name: "fit_epochs" repeat { count: 10 } }
    ops { name: "fit_steps" take { count: 50000 } }
  )")),
            91234);
  EXPECT_EQ(StepsOfAnEpoch(Spec(R"(
    source { name: "src" range { stop: 100 } }
    ops { name: "b" batch { batch_size: 32 } }
  )")),
            std::nullopt)
      << "one pass: no epochs";
  EXPECT_EQ(StepsOfAnEpoch(Spec(R"(
    source { name: "src" size_is_stand_in: true range { stop: 100 } }
    ops { name: "r" repeat {} }
  )")),
            std::nullopt)
      << "a stand-in's count is no epoch";
}

// An interleave whose sub-pipeline batches gives batches, so a map after it runs the
// function's batched form: one the function lacks is refused before any run, by the same
// rule the builders follow (the validator used to reset batched-ness after an interleave).
TEST(PipelinePlanTest, RefusesWhatTheValidatorRefuses) {
  spec::PipelineSpec spec;
  spec.set_name("t");
  spec.mutable_source()->set_name("src");
  spec.mutable_source()->mutable_range()->set_stop(10);
  auto* il = spec.add_ops();
  il->set_name("il");
  il->mutable_interleave()->mutable_per_element()->mutable_from_element();
  auto* inner = il->mutable_interleave()->add_ops();
  inner->set_name("b");
  inner->mutable_batch()->set_batch_size(2);
  auto* resize = spec.add_ops();
  resize->set_name("r");
  resize->mutable_map()->mutable_fn()->mutable_resize()->set_height(2);
  resize->mutable_map()->mutable_fn()->mutable_resize()->set_width(2);
  auto plan = PlanPipeline(spec, 2);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("op 'r' (map): fn 'resize' has no batched form"),
            std::string::npos)
      << plan.status().message();
}

// from_tensor_slices: its entries written out, or only how many there are; never both and
// never neither, refused before any run.
TEST(PipelinePlanTest, FromTensorSlicesTakesValuesStringsOrACount) {
  for (const char* ok : {"values: 1 values: 2", "strings: \"a\"", "count: 3"}) {
    auto plan = PlanPipeline(Spec(std::string("source { from_tensor_slices { ") + ok + " } }"), 1);
    EXPECT_TRUE(plan.ok()) << ok << ": " << plan.status().message();
  }
  for (const char* bad : {"", "values: 1 count: 2", "count: -1"}) {
    spec::PipelineSpec spec;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        std::string("source { name: \"s\" from_tensor_slices { ") + bad + " } }", &spec));
    auto plan = PlanPipeline(spec, 1);
    ASSERT_FALSE(plan.ok()) << bad;
    EXPECT_NE(plan.status().message().find("needs one of values, strings"), std::string::npos)
        << plan.status().message();
  }
}

// A file the source lists that is not there: both clocks refuse the spec before running,
// naming the source and the file (the simulator had counted no records and said nothing).
TEST(PipelinePlanTest, AListedFileThatIsNotThereIsRefused) {
  const std::string missing = ::testing::TempDir() + "/pipescope_no_such_file.tfrecord";
  for (const char* kind : {"tfrecord", "text_line"}) {
    auto plan = PlanPipeline(Spec(std::string("source { name: \"records\" ") + kind +
                                  " { files: \"" + missing + "\" } }"),
                             1);
    ASSERT_FALSE(plan.ok()) << kind;
    EXPECT_EQ(plan.status().message(),
              "source 'records': cannot open \"" + missing + "\": no such file");
  }
}

}  // namespace
}  // namespace pipescope::engine
