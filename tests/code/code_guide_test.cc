// TensorFlow's guide "Better performance with the tf.data API" as its readers run it: the
// guide's own code (tests/code/corpus/perf_guide_*.py, ArtificialDataset's generator that
// sleeps 30 ms to open and 15 ms a sample) imported and simulated on 2 cores takes the time
// its sleeps allow, worked out below from tf.data's semantics. Before the generator's sleeps
// were read it stood in as an endless generator of 100 us a sample, and the interleave's as
// files of 1,000 records.
//
// The guide's benchmark() iterates the dataset afresh each epoch (`for epoch_num in
// range(num_epochs): for sample in dataset:`), so nothing of one epoch overlaps the next,
// unlike the hand-written specs in resources/pipelines/guide, which repeat inside the
// pipeline. AUTOTUNE on 2 cores is 2 (tf.data caps it at the cores).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "app/code/code_import.h"
#include "engine/sim/simulator.h"

namespace pipescope::code {
namespace {

engine::RunSummary Simulated(const spec::PipelineSpec& spec) {
  auto model = sim::DefaultCostModel(spec, 2);
  EXPECT_TRUE(model.ok()) << model.status().message();
  sim::SimulationOptions options;
  options.duration_s = 30;
  auto r = sim::Simulate(spec, *model, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->summary : engine::RunSummary{};
}

struct GuideCode {
  std::string code;  // in tests/code/corpus
  int64_t steps;
  double seconds;  // what the sleeps allow
};

class GuideCodeTest : public ::testing::TestWithParam<GuideCode> {};

TEST_P(GuideCodeTest, TheGuidesCodeTakesTheTimeItsSleepsAllow) {
  const GuideCode& c = GetParam();
  auto imported =
      ImportCodeFile(std::string(PIPESCOPE_SOURCE_DIR) + "/tests/code/corpus/" + c.code);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const engine::RunSummary simulated = Simulated(imported->spec);
  EXPECT_TRUE(simulated.end_of_data) << imported->spec.DebugString();
  EXPECT_EQ(simulated.steps, c.steps) << imported->spec.DebugString();
  EXPECT_NEAR(simulated.duration_s, c.seconds, 0.05 * c.seconds) << imported->spec.DebugString();
  if (imported->spec.source().has_from_generator()) {
    EXPECT_FALSE(imported->spec.source().from_generator().cost_is_stand_in())
        << "a generator that only sleeps costs what its sleeps say";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Guide, GuideCodeTest,
    ::testing::Values(
        // An epoch: the generator opens (30 ms) and reads samples 1 and 2 by 45 and 60 ms,
        // mapped (30 ms) by 75 and 90; the map asks for sample 3 only when a call ends (75
        // ms), read by 90 and mapped by 120; its step ends at 130 ms. Two: 260 ms.
        GuideCode{"perf_guide_parallel_map.py", 6, 0.260},
        // An epoch: the generator opens (30 ms), then each sample is read (15 ms) and
        // stepped on (10 ms) in turn: 105 ms. Two: 210 ms.
        GuideCode{"perf_guide_naive.py", 6, 0.210},
        // An epoch: both generators open at once and read their samples by 45, 60 and 75 ms;
        // six steps of 10 ms from 45 ms end at 105 ms. Two: 210 ms.
        GuideCode{"perf_guide_parallel_interleave.py", 12, 0.210}),
    [](const ::testing::TestParamInfo<GuideCode>& param) {
      std::string name = param.param.code.substr(0, param.param.code.find('.'));
      std::erase(name, '_');
      return name;
    });

// The generator's own reading: its parameters bound to from_generator's args (the guide's
// `args=(num_samples,)` from __new__'s default), its sleeps before the loop and in it, and a
// generator with other work in it left a stand-in.
TEST(GuideCodeTest, AGeneratorsSleepsAndYieldsAreReadWithItsArguments) {
  auto c = ImportCode(R"(import time
import tensorflow as tf
def gen(n, pause):
    time.sleep(0.2)
    for i in range(n):
        time.sleep(pause)
        yield i
ds = tf.data.Dataset.from_generator(gen, args=(7, 0.004), output_types=tf.int64)
for x in ds:
    pass
)",
                      "gen.py");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const auto& g = c->spec.source().from_generator();
  EXPECT_EQ(g.records(), 7);
  EXPECT_EQ(g.wait(), "4ms");
  EXPECT_EQ(g.first_wait(), "200ms");
  EXPECT_FALSE(g.cost_is_stand_in());
  // The guide's count(stop): a while loop over a counter.
  auto counted = ImportCode(R"(import tensorflow as tf
def count(stop):
  i = 0
  while i<stop:
    yield i
    i += 1
ds = tf.data.Dataset.from_generator(count, args=[25], output_types=tf.int32)
)",
                            "count.py");
  ASSERT_TRUE(counted.ok()) << counted.status().message();
  EXPECT_EQ(counted->spec.source().from_generator().records(), 25);
  EXPECT_FALSE(counted->spec.source().from_generator().cost_is_stand_in());
  // One that never sleeps is not said to (tensorflow#43905's generator over a list).
  std::string notes;
  for (const auto& n : counted->notes) notes += n.message + "\n";
  EXPECT_NE(notes.find("'count' does nothing but loop and yield"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("sleep"), std::string::npos) << notes;
  // The elements a `count(stop)` of this body yields, called with 25.
  const auto records_of = [](const std::string& body) {
    auto imported = ImportCode("import tensorflow as tf\ndef count(stop):\n" + body +
                                   "ds = tf.data.Dataset.from_generator(count, args=[25], "
                                   "output_types=tf.int32)\n",
                               "count.py");
    EXPECT_TRUE(imported.ok()) << imported.status().message();
    return imported.ok() ? imported->spec.source().from_generator().records() : int64_t{0};
  };
  EXPECT_EQ(records_of("  i = 2\n  while i <= stop:\n    yield i\n    i += 3\n"), 8)
      << "2, 5, ..., 23";
  EXPECT_EQ(records_of("  i = 2\n  while i <= stop:\n    yield i\n    i += 3\n"
                       "    if i > 100:\n      break\n"),
            -1)
      << "a loop that may leave early yields as many as the run says";
  auto worked = ImportCode(R"(import time
import tensorflow as tf
def gen():
    for i in range(10):
        time.sleep(0.01)
        yield load_volume(i)
ds = tf.data.Dataset.from_generator(gen, output_types=tf.float32)
)",
                           "gen.py");
  ASSERT_TRUE(worked.ok());
  EXPECT_TRUE(worked->spec.source().from_generator().cost_is_stand_in())
      << "load_volume's cost is not in the code";
  EXPECT_EQ(worked->spec.source().from_generator().wait(), "10ms");
  EXPECT_EQ(worked->spec.source().from_generator().records(), 10);
}

// The guide's older spelling hands the class itself to interleave
// (`.interleave(ArtificialDataset)`): each element is __new__'s num_samples, so how many
// samples a file has is known only when the code runs, but its sleeps are the file's latencies
// all the same. A class called with arguments binds them after cls.
TEST(GuideCodeTest, AClassGivenToInterleaveIsCalledOnEachElement) {
  // The guide's imports and ArtificialDataset, as the naive section's file has them.
  std::ifstream naive(std::string(PIPESCOPE_SOURCE_DIR) + "/tests/code/corpus/perf_guide_naive.py");
  const std::string whole((std::istreambuf_iterator<char>(naive)), {});
  const std::string artificial = whole.substr(0, whole.find("\ndef benchmark"));
  ASSERT_NE(artificial.find("class ArtificialDataset"), std::string::npos);
  auto c = ImportCode(artificial + "ds = tf.data.Dataset.range(2).interleave(ArtificialDataset)\n",
                      "old_guide.py");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->spec.ops_size(), 1) << c->spec.DebugString();
  const auto& file = c->spec.ops(0).interleave().per_element().synthetic_file();
  EXPECT_EQ(file.open_latency(), "30ms") << c->spec.DebugString();
  EXPECT_EQ(file.read_latency(), "15ms");
  EXPECT_TRUE(file.size_is_stand_in()) << "the element says how many";
  bool said = false;
  for (const CodeNote& n : c->notes) {
    said |= n.message.find("--set interleave.records_per_file=N") != std::string::npos;
    // The generator is no source of the spec: its knobs are the file's.
    EXPECT_EQ(n.message.find("--set _generator."), std::string::npos) << n.message;
  }
  EXPECT_TRUE(said);

  auto five = ImportCode(artificial + "ds = ArtificialDataset(5)\n", "five.py");
  ASSERT_TRUE(five.ok()) << five.status().message();
  EXPECT_EQ(five->spec.source().from_generator().records(), 5);
}

}  // namespace
}  // namespace pipescope::code
