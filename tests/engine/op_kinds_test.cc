// The op kinds' descriptions (engine/spec/op_kinds.h) against the spec's proto, which
// nothing else ties them to: every kind of Op has one description, every knob it names is an
// integer field of that kind's message, and each knob's AUTOTUNE start and range are what
// both builders and the validator then use; every kind runs on both clocks.
#include "engine/spec/op_kinds.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/runtime/op_factories.h"
#include "engine/runtime/stage_traits.h"
#include "engine/runtime/value_rules.h"
#include "engine/sim/sim_op_factories.h"
#include "engine/spec/pipeline_plan.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_validator.h"

namespace pipescope::engine {
namespace {

using google::protobuf::FieldDescriptor;

TEST(OpKindsTest, EveryOpKindHasOneDescriptionAndItsKnobsAreFieldsOfItsMessage) {
  const auto* oneof = spec::Op::descriptor()->FindOneofByName("kind");
  ASSERT_NE(oneof, nullptr);
  std::set<std::string> described;
  int last_position = -1;
  for (const OpKindDescription* d : AllOpKinds()) {
    EXPECT_TRUE(described.insert(std::string(d->kind)).second) << d->kind << " twice";
    const int position =
        spec::Op::descriptor()->FindFieldByNumber(static_cast<int>(d->kind_case))->index();
    EXPECT_GT(position, last_position) << d->kind << ": the kinds are listed in the proto's order";
    last_position = position;
  }
  EXPECT_EQ(described.size(), static_cast<size_t>(oneof->field_count()));
  for (int i = 0; i < oneof->field_count(); ++i) {
    const FieldDescriptor* kind = oneof->field(i);
    const OpKindDescription* d = DescribeOpKind(kind->name());
    ASSERT_NE(d, nullptr) << kind->name() << " has no description";
    EXPECT_EQ(static_cast<int>(d->kind_case), kind->number()) << kind->name();
    for (const KnobDescription& knob : d->knobs) {
      const FieldDescriptor* field = kind->message_type()->FindFieldByName(std::string(knob.name));
      ASSERT_NE(field, nullptr) << kind->name() << "." << knob.name;
      EXPECT_EQ(field->cpp_type(), FieldDescriptor::CPPTYPE_INT64)
          << kind->name() << "." << knob.name;
      EXPECT_LE(TuneMin(knob), knob.max) << kind->name() << "." << knob.name;
      EXPECT_TRUE(knob.autotune || !knob.fixed_because.empty())
          << kind->name() << "." << knob.name << ": say why it cannot be AUTOTUNE";
      EXPECT_FALSE(knob.autotune && knob.decides_output) << kind->name() << "." << knob.name;
    }
    if (d->addable && !d->new_op_knob.empty()) {
      EXPECT_NE(DescribeKnob(d->kind, d->new_op_knob), nullptr) << kind->name();
    }
    EXPECT_NE(EngineOpFactoryOf(d->kind_case), nullptr) << kind->name() << " runs on the engine";
    EXPECT_NE(sim::SimOpFactoryOf(d->kind_case), nullptr) << kind->name() << " is simulated";
    // The simulator's values are the engine's rules replayed: a kind that can make values
    // of its own says how (engine/runtime/value_rules.h).
    if (d->changes_values) {
      EXPECT_NE(engine::ValueRules::Of(d->kind_case), nullptr) << kind->name() << " makes values";
    }
  }
}

TEST(OpKindsTest, AutotuneStartsWhereTheDescriptionSays) {
  EXPECT_EQ(KnobStart(*DescribeKnob("map", "num_parallel_calls"), kAutotune, 6), 6)
      << "parallelism starts at the CPU budget";
  EXPECT_EQ(KnobStart(*DescribeKnob("prefetch", "buffer_size"), kAutotune, 6), 2);
  EXPECT_EQ(KnobStart(*DescribeKnob("prefetch", "buffer_size"), 5, 6), 5) << "a written value";
  EXPECT_EQ(TuneMin(*DescribeKnob("map", "num_parallel_calls")), 1)
      << "a tuner never makes a parallel map synchronous";
  EXPECT_EQ(TuneMin(*DescribeKnob("prefetch", "buffer_size")), 0);
}

// What the validator knows of the elements before a run, both clocks refuse: an unbatch of
// scalars (the engine fails at its first element, tf.data refuses it at the call), a
// mod_equals filter on strings (the engine fails reading a number); the same ops where the
// elements are rows or numbers pass.
TEST(OpKindsTest, TheValidatorRefusesWhatItKnowsCannotRun) {
  auto check = [](const std::string& source, const std::string& ops) {
    auto spec = ParseSpecText("source { " + source + " } " + ops, "elements.pbtxt");
    return spec.ok() ? std::string() : spec.status().message();
  };
  const std::string range = "range { stop: 10 }";
  EXPECT_NE(check(range, "ops { unbatch {} }").find("op 'unbatch' (unbatch): takes scalars"),
            std::string::npos);
  EXPECT_NE(
      check(range, "ops { shuffle { buffer_size: 4 } } ops { unbatch {} }").find("takes scalars"),
      std::string::npos)
      << "a shuffle hands on what it takes";
  EXPECT_EQ(check(range, "ops { batch { batch_size: 2 } } ops { unbatch {} }"), "");
  EXPECT_EQ(check(range, "ops { map { fn { fill {} } } } ops { unbatch {} }"), "")
      << "fill makes vectors";
  const std::string lines = "synthetic { records: 10 }";
  EXPECT_NE(check(lines, "ops { filter { predicate { mod_equals { modulus: 2 } } } }")
                .find("predicate mod_equals reads each element as an int64 number, and the "
                      "elements here are strings"),
            std::string::npos);
  EXPECT_EQ(check(range, "ops { filter { predicate { mod_equals { modulus: 2 } } } }"), "");
  EXPECT_EQ(check(lines, "ops { filter { predicate { keep_fraction { fraction: 0.5 } } } }"), "");
  // Python's share under the interpreter lock is a share, for a map's function and a
  // generator alike; a generator's numbers are numbers a filter may read.
  EXPECT_NE(check(range, "ops { map { fn { python { duration: \"1ms\" gil_share: 1.5 } } } }")
                .find("gil_share is the share of its time under the interpreter lock"),
            std::string::npos);
  const std::string generator = "from_generator { records: 4 duration: \"1ms\" gil_share: -1 }";
  EXPECT_NE(check(generator, "").find("gil_share is the share"), std::string::npos);
  EXPECT_NE(check("from_generator { records: 0 duration: \"1ms\" }", "").find("records must be"),
            std::string::npos);
  EXPECT_EQ(check("from_generator { records: 4 duration: \"1ms\" }",
                  "ops { filter { predicate { mod_equals { modulus: 2 } } } }"),
            "");
}

// A zip needs its second pipeline's source, checks it as it checks the pipeline's own, and
// knows what the pair is: an unbatch of two scalars is refused, of a scalar and a vector
// left to the run; a second source listing a file that is not there is refused before any
// run, for both clocks.
TEST(OpKindsTest, TheValidatorChecksAZipsSecondPipeline) {
  auto check = [](const std::string& ops) {
    auto spec = ParseSpecText("source { range { stop: 10 } } " + ops, "zip.pbtxt");
    return spec.ok() ? std::string() : spec.status().message();
  };
  EXPECT_NE(check("ops { zip {} }").find("source is required"), std::string::npos);
  EXPECT_NE(check("ops { zip { source { range { stop: 3 } } } }").find("name is required"),
            std::string::npos);
  EXPECT_NE(
      check(
          "ops { zip { source { name: \"b\" from_generator { records: 0 duration: \"1ms\" } } } }")
          .find("records must be"),
      std::string::npos);
  EXPECT_NE(check("ops { zip { source { name: \"b\" range { stop: 3 } } } } ops { unbatch {} }")
                .find("takes scalars"),
            std::string::npos);
  EXPECT_EQ(
      check(
          "ops { zip { source { name: \"b\" range { stop: 3 } } ops { map { fn { fill {} } } } } } "
          "ops { unbatch {} }"),
      "");
  auto spec = ParseSpecText(
      "source { range { stop: 10 } } ops { zip { source { name: \"labels\" tfrecord { files: "
      "\"/nonexistent/labels.tfrecord\" } } } }",
      "zip.pbtxt");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto plan = PlanPipeline(*spec, 1);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("source 'labels': cannot open"), std::string::npos)
      << plan.status().message();
}

// A DataLoader needs its dataset's __getitem__, refuses what PyTorch refuses without
// workers, and reads its durations; its knobs' ranges come from its description. After it,
// the elements are batches (an unbatch may follow).
TEST(OpKindsTest, TheValidatorChecksADataLoaderAsPyTorchDoes) {
  auto check = [](const std::string& fields) {
    auto spec = ParseSpecText("source { range { stop: 10 } } ops { name: \"loader\" dataloader { " +
                                  fields + " } } ops { name: \"rows\" unbatch {} }",
                              "loader.pbtxt");
    return spec.ok() ? std::string() : spec.status().message();
  };
  const std::string getitem = "batch_size: 4 getitem { python { duration: \"1ms\" } } ";
  EXPECT_EQ(check(getitem + "num_workers: 2 prefetch_factor: 4 persistent_workers: true"), "");
  EXPECT_NE(check("batch_size: 4").find("getitem is required"), std::string::npos);
  EXPECT_NE(check("batch_size: 4 getitem { fill {} }").find("getitem must be python"),
            std::string::npos);
  EXPECT_NE(check(getitem + "prefetch_factor: 4").find("prefetch_factor needs workers"),
            std::string::npos);
  EXPECT_NE(check(getitem + "persistent_workers: true").find("persistent_workers needs workers"),
            std::string::npos);
  EXPECT_NE(check(getitem + "num_workers: 2 worker_startup: \"soon\"").find("worker_startup"),
            std::string::npos);
  EXPECT_NE(check(getitem + "num_workers: 300").find("must be ≤ 256"), std::string::npos);
  EXPECT_NE(check(getitem + "num_workers: 2 prefetch_factor: 0").find("prefetch_factor"),
            std::string::npos);
  // A whole batch in one call is Python's (__getitems__, tensor[indices]).
  EXPECT_EQ(check(getitem + "fetch_batches: true indexes_batches: true"), "");
  EXPECT_NE(check("batch_size: 4 getitem { io_wait { duration: \"1ms\" } } fetch_batches: true")
                .find("fetch_batches needs getitem to be python"),
            std::string::npos);
}

TEST(OpKindsTest, TheValidatorReadsRangesAndReasonsFromTheDescriptions) {
  auto check = [](const std::string& op) {
    auto spec = ParseSpecText("source { range { stop: 10 } } ops { name: \"x\" " + op + " }",
                              "kinds.pbtxt");
    if (!spec.ok()) return spec.status().message();  // parsing validates
    return ValidateSpec(*spec, "kinds.pbtxt").message();
  };
  EXPECT_NE(check("map { fn { identity {} } num_parallel_calls: 257 }").find("must be ≤ 256"),
            std::string::npos);
  EXPECT_NE(check("batch { batch_size: -1 }")
                .find("cannot be AUTOTUNE: the batch size is part "
                      "of the output"),
            std::string::npos);
  EXPECT_NE(check("shuffle { buffer_size: 0 }").find("must be ≥ 1, got 0"), std::string::npos);
  EXPECT_EQ(check("prefetch { buffer_size: -1 }"), "") << "AUTOTUNE is allowed";
}

TEST(OpKindsTest, PeopleReadOrderAndRatio) {
  EXPECT_EQ(DescribeForPeople(*DescribeOpKind("map")),
            "map keeps order (unless deterministic: false); one element per element in");
  EXPECT_EQ(DescribeForPeople(*DescribeOpKind("shuffle")),
            "shuffle reorders at random; one element per element in");
}

// The knobs whose value other than 0 runs an op ahead of its consumer, on threads or
// worker processes of its own, are said once, by the kinds: what the advisor asks to know
// whether anything after a shuffle fetches ahead, and what a written parallelism is.
TEST(OpKindsTest, TheKnobsThatRunAnOpAheadAreTheKindsThreadsAndWorkers) {
  for (const char* knob : {"num_parallel_calls", "num_workers", "workers"})
    EXPECT_TRUE(IsRunsAheadKnob(knob)) << knob;
  for (const char* knob : {"buffer_size", "prefetch_factor", "cycle_length", "batch_size"})
    EXPECT_FALSE(IsRunsAheadKnob(knob)) << knob;
}

}  // namespace
}  // namespace pipescope::engine

namespace pipescope::engine {
namespace {

// A shuffle draws its order at random, and where it draws anew each epoch a cache after it
// would replay the first epoch's: random. With reshuffle_each_iteration=False its one order
// comes back each epoch, and nothing is frozen by a cache after it.
TEST(OpKindsTest, AShuffleThatKeepsItsOrderIsNoRandomStage) {
  const auto traits = [](const std::string& fields) {
    auto spec = ParseSpecText(
        "source { range { stop: 10 } } ops { shuffle { buffer_size: 4 " + fields + " } }",
        "traits");
    EXPECT_TRUE(spec.ok()) << spec.status().message();
    const spec::Op& op = spec->ops(0);
    return StageTraitsOf(op, *DescribeOp(op), false);
  };
  EXPECT_NE(traits("") & record::kTraitRandom, 0u);
  EXPECT_NE(traits("reshuffle_each_iteration: true") & record::kTraitRandom, 0u);
  EXPECT_EQ(traits("reshuffle_each_iteration: false") & record::kTraitRandom, 0u);
}

}  // namespace
}  // namespace pipescope::engine
