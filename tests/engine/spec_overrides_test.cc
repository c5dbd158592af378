#include "engine/spec/spec_overrides.h"

#include <gtest/gtest.h>

#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_validator.h"

namespace pipescope::engine {
namespace {

spec::PipelineSpec Demo() {
  auto r = ParseSpecText(
      "source { name: \"read\" synthetic { records: 5 record_bytes: 4 } }\n"
      "ops { name: \"decode\" map { fn { identity {} } num_parallel_calls: 1 } }\n"
      "ops { name: \"batch\" batch { batch_size: 4 } }\n"
      "train_step { step_time: \"1ms\" }",
      "demo");
  EXPECT_TRUE(r.ok());
  return *r;
}

TEST(SpecOverridesTest, SetsAKnobOfANamedOp) {
  auto spec = Demo();
  ASSERT_TRUE(ApplyOverride(spec, "decode.num_parallel_calls=4").ok());
  EXPECT_EQ(spec.ops(0).map().num_parallel_calls(), 4);
  ASSERT_TRUE(ApplyOverride(spec, "decode.num_parallel_calls=AUTOTUNE").ok());
  EXPECT_EQ(spec.ops(0).map().num_parallel_calls(), kAutotune);
  ASSERT_TRUE(ApplyOverride(spec, "batch.drop_remainder=true").ok());
  EXPECT_TRUE(spec.ops(1).batch().drop_remainder());
  ASSERT_TRUE(ApplyOverride(spec, "train_step.step_time=3ms").ok());
  EXPECT_EQ(spec.train_step().step_time(), "3ms");
  ASSERT_TRUE(ApplyOverride(spec, "read.records=9").ok());
  EXPECT_EQ(spec.source().synthetic().records(), 9);
  // A size takes a unit as the spec's sizes do, or none.
  ASSERT_TRUE(ApplyOverride(spec, "read.record_bytes=200B").ok());
  EXPECT_EQ(spec.source().synthetic().record_bytes(), 200);
  ASSERT_TRUE(ApplyOverride(spec, "read.record_bytes=3KiB").ok());
  EXPECT_EQ(spec.source().synthetic().record_bytes(), 3072);
  ASSERT_TRUE(ApplyOverride(spec, "read.record_bytes=64").ok());
  EXPECT_EQ(spec.source().synthetic().record_bytes(), 64);
  EXPECT_FALSE(ApplyOverride(spec, "read.records=9B").ok());
  ASSERT_TRUE(ApplyOverride(spec, "budget.cpu_cores=16").ok());
  EXPECT_EQ(spec.budget().cpu_cores(), 16);
  // An enum by its value's name, and a readable refusal of another.
  ASSERT_TRUE(ApplyOverride(spec, "train_step.device=cpu").ok());
  EXPECT_EQ(spec.train_step().device(), spec::cpu);
  const Status wrong = ApplyOverride(spec, "train_step.device=tpu");
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("expected one of simulated, gpu, cpu"), std::string::npos)
      << wrong.message();
}

// A zip's second pipeline: its source and its ops are set by their names, as the first's.
// The disk: its kind by name, each figure, and a Python call's file size in units.
TEST(SpecOverridesTest, TheStoragesFiguresAreSetByTheirNames) {
  auto spec = Demo();
  ASSERT_TRUE(ApplyOverride(spec, "storage.kind=hdd").ok());
  ASSERT_TRUE(ApplyOverride(spec, "storage.queue_depth=4").ok());
  ASSERT_TRUE(ApplyOverride(spec, "storage.access_time=12ms").ok());
  EXPECT_EQ(spec.storage().kind(), spec::hdd);
  EXPECT_EQ(spec.storage().queue_depth(), 4);
  EXPECT_EQ(spec.storage().access_time(), "12ms");
  const Status floppy = ApplyOverride(spec, "storage.kind=floppy");
  EXPECT_NE(floppy.message().find("expected one of hdd, ssd, nvme, got 'floppy'"),
            std::string::npos)
      << floppy.message();
  // The enum's unset value is neither offered nor taken; a meaningful 0 is both.
  EXPECT_FALSE(ApplyOverride(spec, "storage.kind=no_kind").ok());
  EXPECT_EQ(spec.storage().kind(), spec::hdd);
  ASSERT_TRUE(ApplyOverride(spec, "train_step.device=simulated").ok());
  // The file a map's TensorFlow ops read first (tf.io.read_file's), in units; a map of native
  // work of another kind reads none, and says what takes the size.
  spec.mutable_ops(0)->mutable_map()->mutable_fn()->mutable_cpu_work()->set_duration("1ms");
  ASSERT_TRUE(ApplyOverride(spec, "decode.read_bytes=200KB").ok());
  EXPECT_EQ(spec.ops(0).map().fn().cpu_work().read_bytes(), 200000);
  ASSERT_TRUE(ApplyOverride(spec, "decode.read_files=2").ok());
  EXPECT_EQ(spec.ops(0).map().fn().cpu_work().read_files(), 2);
  spec.mutable_ops(0)->mutable_map()->mutable_fn()->mutable_identity();
  const Status none = ApplyOverride(spec, "decode.read_bytes=200KB");
  EXPECT_NE(none.message().find("runs no Python function"), std::string::npos) << none.message();
}

TEST(SpecOverridesTest, TheSecondPipelineOfAZipIsSetByItsNames) {
  auto parsed = ParseSpecText(R"(name: "z" source { name: "images" range { stop: 10 } }
      ops { name: "pair" zip { source { name: "labels" synthetic { records: 10 record_bytes: 4 } }
            ops { name: "decode" map { fn { cpu_work { duration: "1ms" } } } } } })",
                              "z");
  ASSERT_TRUE(parsed.ok());
  spec::PipelineSpec spec = *parsed;
  ASSERT_TRUE(ApplyOverride(spec, "labels.records=20").ok());
  EXPECT_EQ(spec.ops(0).zip().source().synthetic().records(), 20);
  ASSERT_TRUE(ApplyOverride(spec, "decode.num_parallel_calls=3").ok());
  EXPECT_EQ(spec.ops(0).zip().ops(0).map().num_parallel_calls(), 3);
}

// A list of 8 files read by an interleave of synthetic files; `stand_in`: both sizes marked
// as stand-ins.
Result<spec::PipelineSpec> Files(bool stand_in = false) {
  const std::string mark = stand_in ? "size_is_stand_in: true " : "";
  return ParseSpecText("source { name: \"files\" " + mark +
                           "range { stop: 8 } }\n"
                           "ops { name: \"read\" interleave { per_element { synthetic_file { "
                           "records_per_file: 5 record_bytes: 4 " +
                           mark + "} } cycle_length: 2 } }\ntrain_step { step_time: \"1ms\" }",
                       "files");
}

TEST(SpecOverridesTest, TheStorageOfAnInterleavesSyntheticFilesIsSetOnTheInterleave) {
  auto spec = Files();
  ASSERT_TRUE(spec.ok());
  ASSERT_TRUE(ApplyOverride(*spec, "read.read_latency=5ms").ok());
  ASSERT_TRUE(ApplyOverride(*spec, "read.cycle_length=4").ok());
  EXPECT_EQ(spec->ops(0).interleave().per_element().synthetic_file().read_latency(), "5ms");
  EXPECT_EQ(spec->ops(0).interleave().cycle_length(), 4);
  const Status unknown = ApplyOverride(*spec, "read.colour=red");
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("cycle_length"), std::string::npos) << unknown.message();
}

// A count given makes the data's size the user's: a stand-in's mark goes, on the source and
// on an interleave's synthetic files, whether the spec came from code or a .pbtxt.
TEST(SpecOverridesTest, ACountGivenIsNoLongerAStandIn) {
  auto spec = Files(/*stand_in=*/true);
  ASSERT_TRUE(spec.ok());
  ASSERT_TRUE(ApplyOverride(*spec, "read.record_bytes=8").ok());
  EXPECT_TRUE(spec->ops(0).interleave().per_element().synthetic_file().size_is_stand_in());
  ASSERT_TRUE(ApplyOverride(*spec, "read.records_per_file=100").ok());
  EXPECT_FALSE(spec->ops(0).interleave().per_element().synthetic_file().size_is_stand_in());
  EXPECT_TRUE(spec->source().size_is_stand_in());
  ASSERT_TRUE(ApplyOverride(*spec, "files.stop=100").ok());
  EXPECT_FALSE(spec->source().size_is_stand_in());
}

// The rows an interleave's function makes of each element (from_tensor_slices) are set on
// the interleave.
TEST(SpecOverridesTest, AnInterleavesSlicesAreSetOnTheInterleave) {
  auto spec = ParseSpecText(R"(source { range { stop: 8 } }
      ops { name: "crops" interleave { per_element { from_element { slices: 1000 } }
            cycle_length: 2 } })",
                            "crops");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_TRUE(ApplyOverride(*spec, "crops.slices=64").ok());
  EXPECT_EQ(spec->ops(0).interleave().per_element().from_element().slices(), 64);
  ASSERT_TRUE(ApplyOverride(*spec, "crops.cycle_length=4").ok());
  EXPECT_EQ(spec->ops(0).interleave().cycle_length(), 4);
}

// An interleave's Python generator per element takes its yields and its Python's cost on
// the interleave; a cost given is no longer a stand-in.
TEST(SpecOverridesTest, AnInterleavesGeneratorIsSetOnTheInterleave) {
  auto spec = ParseSpecText(R"(source { range { stop: 8 } }
      ops { name: "il" interleave { per_element { from_generator { records: 1000
            duration: "100us" cost_is_stand_in: true } } cycle_length: 2 } })",
                            "generators");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  ASSERT_TRUE(ApplyOverride(*spec, "il.records=10").ok());
  ASSERT_TRUE(ApplyOverride(*spec, "il.duration=25ms").ok());
  const auto& g = spec->ops(0).interleave().per_element().from_generator();
  EXPECT_EQ(g.records(), 10);
  EXPECT_EQ(g.duration(), "25ms");
  EXPECT_FALSE(g.cost_is_stand_in());
}

TEST(SpecOverridesTest, ReadsBackAnIntegerKnob) {
  auto spec = Demo();
  EXPECT_EQ(ReadIntKnob(spec, "decode", "num_parallel_calls"), 1);
  ASSERT_TRUE(ApplyOverride(spec, "batch.batch_size=16").ok());
  EXPECT_EQ(ReadIntKnob(spec, "batch", "batch_size"), 16);
  EXPECT_EQ(ReadIntKnob(spec, "batch", "drop_remainder"), std::nullopt) << "not an integer";
  EXPECT_EQ(ReadIntKnob(spec, "shuffle", "buffer_size"), std::nullopt) << "no such op";
  EXPECT_EQ(ReadIntKnob(spec, "batch", "no_such_knob"), std::nullopt);
}

TEST(SpecOverridesTest, ErrorsListWhatExists) {
  auto spec = Demo();
  Status s = ApplyOverride(spec, "decod.num_parallel_calls=4");
  EXPECT_NE(s.message().find("no op or source named 'decod' (the spec's: read, decode, batch, "
                             "train_step, budget, storage)"),
            std::string::npos)
      << s.message();
  s = ApplyOverride(spec, "decode.parallelism=4");
  EXPECT_NE(
      s.message().find(
          "has no knob 'parallelism' (knobs: num_parallel_calls, deterministic, call_overhead, "
          "random); for its function: cost, wait"),
      std::string::npos)
      << s.message();
  s = ApplyOverride(spec, "decode.num_parallel_calls=four");
  EXPECT_NE(s.message().find("expected an integer or AUTOTUNE"), std::string::npos) << s.message();
  EXPECT_FALSE(ApplyOverride(spec, "nonsense").ok());
}

// What a function costs is set by the names import-code's notes give, on a spec file as on
// the code it was read from (work_overrides.h): a map's cost and wait, a generator's cost,
// a DataLoader's __getitem__ and collate_fn, a filter's fraction.
TEST(SpecOverridesTest, AFunctionsCostIsSetByTheNamesTheCodesNotesGive) {
  auto parsed = ParseSpecText(
      R"(source { name: "gen" from_generator { records: 100 duration: "9us" cost_is_stand_in: true } }
         ops { name: "parse" map { fn { cpu_work { duration: "6us" } cost_is_stand_in: true } } }
         ops { name: "keep" filter { predicate { keep_fraction { fraction: 1 } } } }
         ops { name: "loader" dataloader { batch_size: 4 num_workers: 2
                                           getitem { python { duration: "1ms" } } } }
         train_step { step_time: "1ms" })",
      "work");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  spec::PipelineSpec spec = *parsed;
  ASSERT_TRUE(ApplyOverride(spec, "parse.cost=40us").ok());
  EXPECT_EQ(spec.ops(0).map().fn().cpu_work().duration(), "40us");
  EXPECT_FALSE(spec.ops(0).map().fn().cost_is_stand_in());
  ASSERT_TRUE(ApplyOverride(spec, "parse.wait=2ms").ok());
  EXPECT_EQ(spec.ops(0).map().fn().cpu_work().wait(), "2ms");
  ASSERT_TRUE(ApplyOverride(spec, "gen.cost=85ms").ok());
  EXPECT_EQ(spec.source().from_generator().duration(), "85ms");
  EXPECT_FALSE(spec.source().from_generator().cost_is_stand_in());
  ASSERT_TRUE(ApplyOverride(spec, "gen.wait=60ms").ok());
  EXPECT_EQ(spec.source().from_generator().wait(), "60ms");
  ASSERT_TRUE(ApplyOverride(spec, "keep.fraction=0.25").ok());
  EXPECT_EQ(spec.ops(1).filter().predicate().keep_fraction().fraction(), 0.25);
  ASSERT_TRUE(ApplyOverride(spec, "loader.cost=3ms").ok());
  EXPECT_EQ(spec.ops(2).dataloader().getitem().python().duration(), "3ms");
  ASSERT_TRUE(ApplyOverride(spec, "loader.wait=150ms").ok());
  EXPECT_EQ(spec.ops(2).dataloader().getitem().python().wait(), "150ms");
  ASSERT_TRUE(ApplyOverride(spec, "loader.sample_bytes=150KB").ok());
  EXPECT_EQ(spec.ops(2).dataloader().getitem().output_bytes(), 150'000);
  ASSERT_TRUE(ApplyOverride(spec, "loader.collate_cost=1ms").ok());
  // The share of a Python function's time under the interpreter lock: a __getitem__'s, a
  // generator's; a function of TensorFlow ops runs no Python, and says so.
  Status s_gil = ApplyOverride(spec, "loader.gil_share=0.25");
  ASSERT_TRUE(s_gil.ok()) << s_gil.message();
  EXPECT_EQ(spec.ops(2).dataloader().getitem().python().gil_share(), 0.25);
  ASSERT_TRUE(ApplyOverride(spec, "gen.gil_share=0").ok());
  EXPECT_TRUE(spec.source().from_generator().has_gil_share());
  EXPECT_EQ(spec.source().from_generator().gil_share(), 0);
  EXPECT_FALSE(ApplyOverride(spec, "loader.gil_share=1.5").ok());
  s_gil = ApplyOverride(spec, "parse.gil_share=0.5");
  EXPECT_NE(s_gil.message().find("'parse' runs no Python function"), std::string::npos)
      << s_gil.message();
  // Refused with what it takes: a duration, a fraction in (0, 1], an op that has the knob.
  Status s = ApplyOverride(spec, "parse.cost=fast");
  EXPECT_NE(s.message().find("parse.cost=fast"), std::string::npos) << s.message();
  EXPECT_FALSE(ApplyOverride(spec, "keep.fraction=2").ok());
  s = ApplyOverride(spec, "keep.cost=1ms");
  EXPECT_NE(s.message().find("for its predicate: fraction"), std::string::npos) << s.message();
  EXPECT_FALSE(ApplyOverride(spec, "gen.first_wait=soon").ok());
  // A source that runs no Python has no function: its own knobs are listed.
  spec::PipelineSpec plain = Demo();
  s = ApplyOverride(plain, "read.cost=1ms");
  EXPECT_NE(s.message().find("source 'read' has no knob 'cost' (knobs: records"), std::string::npos)
      << s.message();
  // A list the spec writes (from_tensor_slices' strings) is no knob, and is not listed as one.
  auto slices =
      ParseSpecText(R"(source { name: "names" from_tensor_slices { strings: "a" strings: "b" } }
                       train_step { step_time: "1ms" })",
                    "slices");
  ASSERT_TRUE(slices.ok()) << slices.status().message();
  s = ApplyOverride(*slices, "names.strings=c");
  EXPECT_NE(s.message().find("source 'names' has no knob 'strings' (knobs: count, element_bytes)"),
            std::string::npos)
      << s.message();
}

TEST(SpecOverridesTest, ValidationCatchesAnOutOfRangeValue) {
  auto spec = Demo();
  ASSERT_TRUE(ApplyOverride(spec, "batch.batch_size=0").ok());
  EXPECT_FALSE(ValidateSpec(spec, "demo").ok());
}

}  // namespace
}  // namespace pipescope::engine
