// Pipescope's tuner on measurements it cannot tell from real ones: a model pipeline whose
// steps/s follow from its parallelism (decode needs 12 ms of CPU per step, the device
// 8 ms). Water-filling hands cores to the op that limits the rate until the device
// does, or the cores are spent; the tuner keeps a round only when it gains.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "engine/spec/spec_loader.h"
#include "engine/tuning/core_allocation.h"
#include "engine/tuning/pipescope_tuner.h"
#include "engine/tuning/tfdata_tuner.h"

namespace pipescope::engine {
namespace {

TEST(CoreAllocationTest, TheSlowestOpGetsCoresUntilTheDeviceLimits) {
  // decode: 12 ms of work per step, augment: 3 ms; the device takes 5 ms per step.
  const auto a = AllocateCores({{"decode", 12e6}, {"augment", 3e6}}, 5e6, 16);
  EXPECT_EQ(a.parallelism, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(a.limit, "device");
  EXPECT_DOUBLE_EQ(a.cpu_cores_busy, 3) << "15 ms of work per 5 ms step";
  EXPECT_DOUBLE_EQ(a.predicted_step_ns, 5e6);
}

TEST(CoreAllocationTest, WithTooFewCoresTheStepIsTheCpuBound) {
  // 18 ms of CPU work per step on 5 cores: no configuration beats 3.6 ms per step; decode
  // needs 4 workers and parse 2 to keep up with it.
  const auto a = AllocateCores({{"decode", 12e6}, {"parse", 6e6}}, 1e6, 5);
  EXPECT_EQ(a.parallelism, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(a.limit, "cores");
  EXPECT_DOUBLE_EQ(a.predicted_step_ns, 3.6e6);
  EXPECT_DOUBLE_EQ(a.cpu_cores_busy, 5);
}

TEST(CoreAllocationTest, AnIoWaitGetsWorkersBeyondTheCores) {
  // 32 ms of waiting and 8 ms of computing per step on 2 cores, device 8 ms: the fetch
  // needs 4 waiting workers, the decode 1; one core stays free.
  const auto a = AllocateCores({{"fetch", 32e6, 64, 0}, {"decode", 8e6}}, 8e6, 2);
  EXPECT_EQ(a.parallelism, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(a.limit, "device");
  EXPECT_DOUBLE_EQ(a.cpu_cores_busy, 1);
}

TEST(CoreAllocationTest, AnOpAtItsMaximumParallelismIsTheLimit) {
  const auto a = AllocateCores({{"read", 20e6, 2}}, 1e6, 16);
  EXPECT_EQ(a.parallelism, (std::vector<int64_t>{2}));
  EXPECT_EQ(a.limit, "read");
}

// A pipeline model: decode needs 12 ms of CPU per step (3 ms per element, 4 per batch),
// the device 8 ms; with p workers the step takes max(8, 12 / p) ms.
Result<TunerMeasurement> Model(const spec::PipelineSpec& spec, int* calls) {
  ++*calls;
  const int64_t p = std::max<int64_t>(1, spec.ops(0).map().num_parallel_calls());
  const double step_ms = std::max(8.0, 12.0 / static_cast<double>(p));
  TunerMeasurement m;
  m.steps_per_s = 1000 / step_ms;
  auto& a = m.analysis;
  a.steps_per_s = m.steps_per_s;
  a.device_busy_fraction = 8.0 / step_ms;
  a.input_wait_fraction = 1 - a.device_busy_fraction;
  trace::StageFigures decode;
  decode.name = "decode";
  decode.elements_per_s = 4 * m.steps_per_s;
  decode.self_ns_per_element = 3e6;
  trace::StageFigures prefetch;
  prefetch.name = "prefetch";
  prefetch.buffer_fill = 0.1;
  a.stages = {decode, prefetch};
  return m;
}

// What Model() describes: decode, batch 4, prefetch.
const char* kDecodeChain = R"(
    source { synthetic { records: -1 } }
    ops { name: "decode" map { fn { cpu_work { duration: "3ms" } } num_parallel_calls: 1 } }
    ops { name: "batch" batch { batch_size: 4 } }
    ops { name: "prefetch" prefetch { buffer_size: 2 } })";

TEST(PipescopeTunerTest, RaisesTheSlowOpsParallelismToWhatTheDeviceNeeds) {
  auto spec = ParseSpecText(kDecodeChain, "tuner");
  ASSERT_TRUE(spec.ok());
  int calls = 0;
  TunerOptions options;
  options.cores = 8;
  auto r = TunePipescope(
      *spec, [&](const spec::PipelineSpec& s) { return Model(s, &calls); }, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tuned.ops(0).map().num_parallel_calls(), 2) << "12 ms / 2 = 6 ms < 8 ms";
  EXPECT_NEAR(r->steps_per_s_before, 1000 / 12.0, 1e-9);
  EXPECT_NEAR(r->steps_per_s_after, 125, 1e-9);
  EXPECT_EQ(r->worker_threads, 2) << "decode's two workers";
  EXPECT_DOUBLE_EQ(r->cpu_cores_busy, 1.5) << "12 ms of work per 8 ms step";
  ASSERT_EQ(r->knobs.size(), 2u);
  EXPECT_EQ(r->knobs[0].name, "decode.num_parallel_calls");
  EXPECT_EQ(r->knobs[0].before, 1);
  EXPECT_EQ(r->knobs[0].after, 2);
  EXPECT_EQ(calls, 2) << "a measurement of the spec and one of the tuned candidate";
}

TEST(PipescopeTunerTest, OneCoreLeavesNothingToChange) {
  auto spec = ParseSpecText(R"(
    source { synthetic { records: -1 } }
    ops { name: "decode" map { fn { cpu_work { duration: "3ms" } } num_parallel_calls: 1 } })",
                            "tuner");
  ASSERT_TRUE(spec.ok());
  int calls = 0;
  TunerOptions options;
  options.cores = 1;
  auto r = TunePipescope(
      *spec, [&](const spec::PipelineSpec& s) { return Model(s, &calls); }, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tuned.ops(0).map().num_parallel_calls(), 1);
  EXPECT_EQ(r->steps_per_s_after, r->steps_per_s_before);
  EXPECT_EQ(r->measurements, calls);
  EXPECT_NE(r->log.back().find("beyond the noise: stop"), std::string::npos)
      << "the knob steps it tried on one core gained nothing; log: " << r->log.back();
}

// The measurers here take no time: a budget that never ends a tuning, on `cores`.
TunerOptions Untimed(int cores) {
  TunerOptions options;
  options.cores = cores;
  options.budget_s = 1000;
  return options;
}

// The model pipeline, measured with noise: each run's interval is ±10% of its rate and two
// workers gain 5%. One run cannot tell that from chance, three cannot either.
TEST(PipescopeTunerTest, AGainInsideTheNoiseIsNotKept) {
  auto spec = ParseSpecText(kDecodeChain, "tuner");
  ASSERT_TRUE(spec.ok());
  int calls = 0;
  const TunerOptions options = Untimed(8);
  auto r = TunePipescope(
      *spec,
      [&](const spec::PipelineSpec& s) -> Result<TunerMeasurement> {
        ASSIGN_OR_RETURN(TunerMeasurement m, Model(s, &calls));
        m.steps_per_s = s.ops(0).map().num_parallel_calls() > 1 ? 105 : 100;
        m.half_width = 0.1 * m.steps_per_s;
        return m;
      },
      options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tuned.ops(0).map().num_parallel_calls(), 1) << "5% inside ±10%: not kept";
  EXPECT_EQ(calls % options.max_runs, 0) << "each configuration measured max_runs times";
  EXPECT_GT(calls, options.max_runs) << "and more than the spec as given was tried";
  EXPECT_NEAR(r->half_width_before, 10 / std::sqrt(3.0), 1e-9)
      << "three runs of ±10 make the mean ±10/sqrt(3)";
  bool said = false;
  for (const auto& line : r->log) said |= line.find("not beyond the noise") != std::string::npos;
  EXPECT_TRUE(said) << "the log says why the gain was not kept";
}

// An interleave of reads with stragglers: more readers gain nothing, letting the elements
// come in the order they are ready does (tf.data's deterministic=False). The allocation
// does not set that knob; the search of single knob steps that spends the rest of the
// budget does, and says what it changes.
const char* kStragglingReads = R"(
    source { range { stop: 1000000 } }
    ops { name: "read" interleave {
      per_element { synthetic_file { records_per_file: 100 read_latency: "4ms" } }
      cycle_length: 4 num_parallel_calls: 4 } }
    ops { name: "prefetch" prefetch { buffer_size: 2 } })";

// A measurement of an interleave "read" whose files take 4 ms a record, one record a step,
// at `steps_per_s` with a device step of `device_ms`: read caused all the waiting.
TunerMeasurement ReadsMeasured(double steps_per_s, double device_ms) {
  TunerMeasurement m;
  m.steps_per_s = steps_per_s;
  auto& a = m.analysis;
  a.steps_per_s = steps_per_s;
  a.device_busy_fraction = steps_per_s * device_ms / 1000;
  a.input_wait_fraction = 1 - a.device_busy_fraction;
  trace::StageFigures file;
  file.name = "read.file";
  file.elements_per_s = steps_per_s;
  file.self_ns_per_element = 4e6;
  trace::StageFigures read;
  read.name = "read";
  read.elements_per_s = steps_per_s;
  read.caused_wait_share = 1;
  a.stages = {file, read};
  return m;
}

Result<TunerMeasurement> StragglingReads(const spec::PipelineSpec& s, int* calls) {
  ++*calls;
  const bool ordered =
      !s.ops(0).interleave().has_deterministic() || s.ops(0).interleave().deterministic();
  return ReadsMeasured(ordered ? 100 : 150, 5);
}

TEST(PipescopeTunerTest, SpendsItsBudgetOnKnobStepsTheAllocationDoesNotSet) {
  auto spec = ParseSpecText(kStragglingReads, "tuner");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  int calls = 0;
  TunerOptions options = Untimed(4);
  auto r = TunePipescope(
      *spec, [&](const spec::PipelineSpec& s) { return StragglingReads(s, &calls); }, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->tuned.ops(0).interleave().has_deterministic());
  EXPECT_FALSE(r->tuned.ops(0).interleave().deterministic());
  EXPECT_EQ(r->other_settings, std::vector<std::string>{"read.deterministic=false"});
  EXPECT_DOUBLE_EQ(r->steps_per_s_after, 150);
  bool said = false;
  for (const auto& line : r->log)
    said |= line.starts_with("kept set read's deterministic=False: ") &&
            line.find("(Elements come in the order they are ready") != std::string::npos;
  EXPECT_TRUE(said) << "what the kept step changes is in the log";

  // A live tuning does not try what a running pipeline cannot take without a rebuild.
  options.try_rebuilds = false;
  auto live = TunePipescope(
      *spec, [&](const spec::PipelineSpec& s) { return StragglingReads(s, &calls); }, options);
  ASSERT_TRUE(live.ok());
  EXPECT_FALSE(live->tuned.ops(0).interleave().has_deterministic());
}

// Reads from a store that answers slowly gain in proportion to the readers, up to four per
// core, but one more reader at a time gains less than the noise (tensorflow/models#7127:
// 16 readers of Cloud Storage, best at 64). The step to twice the readers is measured beside
// the step of one, so the search gets there instead of stopping where it began.
Result<TunerResult> TuneSlowReads(const std::string& readers) {
  auto spec = ParseSpecText(R"(
    source { range { stop: 1000000 } }
    ops { name: "read" interleave {
      per_element { synthetic_file { records_per_file: 100 read_latency: "50ms" } }
      cycle_length: 16 )" + readers +
                                R"( } }
    ops { name: "prefetch" prefetch { buffer_size: 2 } })",
                            "tuner");
  if (!spec.ok()) return spec.status();
  return TunePipescope(
      *spec,
      [](const spec::PipelineSpec& s) -> Result<TunerMeasurement> {
        // Sequential, or one thread beside the consumer: one reader's rate, and 2% more.
        const int64_t threads = s.ops(0).interleave().num_parallel_calls();
        TunerMeasurement m = ReadsMeasured(threads <= 1 ? 1.02 : static_cast<double>(threads), 1);
        m.half_width = 0.05 * m.steps_per_s;
        return m;
      },
      Untimed(16));
}

TEST(PipescopeTunerTest, AKnobFarFromItsBestIsDoubledNotRaisedByOne) {
  auto r = TuneSlowReads("num_parallel_calls: 16");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tuned.ops(0).interleave().num_parallel_calls(), 64) << r->tuned.DebugString();
  EXPECT_EQ(r->tuned.ops(0).interleave().cycle_length(), 64);
  for (const std::string& line : r->log) {
    EXPECT_EQ(line.find("(the cores there are)"), std::string::npos)
        << "readers that wait are not cut to the cores: " << line;
  }
  // From sequential, where one thread beside the consumer gains nothing beyond the noise
  // (minigo#520's interleave): the step to two readers is measured too.
  auto from_none = TuneSlowReads("");
  ASSERT_TRUE(from_none.ok()) << from_none.status().message();
  EXPECT_EQ(from_none->tuned.ops(0).interleave().num_parallel_calls(), 64);
}

// Every knob step from where the search stands is measured and the fastest kept: the first
// that gains may close off a better one. A DataLoader whose workers start each epoch gains a
// little without workers (num_workers=0, tried first) and five times with persistent
// workers, which need workers (Lightning#18862's answer, which the first-found search missed).
TEST(PipescopeTunerTest, TheFastestKnobStepIsKeptNotTheFirstThatGains) {
  auto spec = ParseSpecText(R"(
      source { name: "dataset" range { stop: 10000 } }
      ops { name: "loader" dataloader { batch_size: 100 num_workers: 11
                                        getitem { python { duration: "10us" } } } }
      ops { name: "epochs" repeat {} })",
                            "tuner");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  TunerOptions options = Untimed(12);
  auto r = TunePipescope(
      *spec,
      [](const spec::PipelineSpec& s) -> Result<TunerMeasurement> {
        const auto& dl = s.ops(0).dataloader();
        const double rate = dl.persistent_workers() ? 50 : dl.num_workers() == 0 ? 9 : 8;
        TunerMeasurement m = ReadsMeasured(rate, 10);
        m.analysis.stages.clear();
        return m;
      },
      options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->tuned.ops(0).dataloader().persistent_workers()) << r->tuned.DebugString();
  EXPECT_EQ(r->tuned.ops(0).dataloader().num_workers(), 11);
  EXPECT_DOUBLE_EQ(r->steps_per_s_after, 50);
}

TEST(PipescopeTunerTest, ATrainingStepThatNeverWaitsEndsTheSearch) {
  auto spec = ParseSpecText(kStragglingReads, "tuner");
  ASSERT_TRUE(spec.ok());
  int calls = 0;
  TunerOptions options = Untimed(4);
  auto r = TunePipescope(
      *spec,
      [&](const spec::PipelineSpec& s) -> Result<TunerMeasurement> {
        ASSIGN_OR_RETURN(TunerMeasurement m, StragglingReads(s, &calls));
        m.analysis.input_wait_fraction = 0;
        return m;
      },
      options);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->tuned.ops(0).interleave().has_deterministic()) << "nothing tried";
  EXPECT_NE(r->log.back().find("the training step is the limit"), std::string::npos)
      << r->log.back();
}

// tf.data's RAM budget binds through the measured element sizes: buffers that already hold
// more than the budget stop the hill climb, so decode keeps its single worker.
TEST(TfDataTunerTest, MeasuredElementSizesBindTheRamBudget) {
  auto spec = ParseSpecText(kDecodeChain, "tuner");
  ASSERT_TRUE(spec.ok());
  auto tune = [&](double ram_bytes) {
    int calls = 0;
    TunerOptions options;
    options.cores = 8;
    options.ram_bytes = ram_bytes;
    auto r = TuneTfData(
        *spec,
        [&](const spec::PipelineSpec& s) -> Result<TunerMeasurement> {
          ASSIGN_OR_RETURN(TunerMeasurement m, Model(s, &calls));
          m.element_bytes = {{"decode", int64_t{100} << 20}};  // 100 MiB per decoded element
          return m;
        },
        options);
    EXPECT_TRUE(r.ok());
    return r->tuned.ops(0).map().num_parallel_calls();
  };
  EXPECT_GE(tune(0), 2) << "no budget: the step needs two workers";
  EXPECT_GE(tune(1e12), 2) << "a budget the buffers stay under";
  EXPECT_EQ(tune(50.0 * (1 << 20)), 1) << "one 100 MiB element is over a 50 MiB budget";
}

// tf.data moves only what the program leaves to AUTOTUNE: decode's num_parallel_calls,
// written as 1, stays 1 beside an AUTOTUNE prefetch, though a second worker would gain
// (MeasuredElementSizesBindTheRamBudget: with no knob AUTOTUNE, it is raised).
TEST(TfDataTunerTest, KnobsSetByHandStayWhereOthersAreAutotune) {
  auto spec = ParseSpecText(R"(
      source { synthetic { records: -1 } }
      ops { name: "decode" map { fn { cpu_work { duration: "3ms" } } num_parallel_calls: 1 } }
      ops { name: "batch" batch { batch_size: 4 } }
      ops { name: "prefetch" prefetch { buffer_size: -1 } })",
                            "tuner");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  int calls = 0;
  TunerOptions options;
  options.cores = 8;
  options.explain = true;
  auto r = TuneTfData(
      *spec, [&](const spec::PipelineSpec& s) { return Model(s, &calls); }, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tuned.ops(0).map().num_parallel_calls(), 1);
  const bool said = std::any_of(r->log.begin(), r->log.end(), [](const std::string& l) {
    return l.find(
               "the knobs the spec leaves to AUTOTUNE, as tf.data tunes them: "
               "prefetch.buffer_size (the ones set to a number stay)") != std::string::npos;
  });
  EXPECT_TRUE(said) << ::testing::PrintToString(r->log);
  for (const TunedKnob& k : r->knobs) EXPECT_NE(k.name, "decode.num_parallel_calls");
}

// An interleave whose cycle_length is left to AUTOTUNE reads as many files at once as the
// CPU budget, as tf.data starts it: the tuner sees workers that can read in parallel and
// raises num_parallel_calls first (read as one file at a time, no worker gains, and the
// climb spends itself on the prefetch buffer).
TEST(TfDataTunerTest, AnAutotunedCycleLengthStartsAtTheCpuBudget) {
  auto spec = ParseSpecText(R"(
      source { range { stop: 1000000 } }
      ops { name: "read" interleave {
        per_element { synthetic_file { records_per_file: 100 read_latency: "4ms" } }
        num_parallel_calls: 1 } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } })",
                            "tuner");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  // One record per step; each worker reads a record in 4 ms, the device takes 1 ms.
  auto measure = [](const spec::PipelineSpec& s) -> Result<TunerMeasurement> {
    const int64_t p = std::max<int64_t>(1, s.ops(0).interleave().num_parallel_calls());
    const double step_ms = std::max(1.0, 4.0 / static_cast<double>(p));
    return ReadsMeasured(1000 / step_ms, 1);
  };
  TunerOptions options;
  options.cores = 4;
  options.explain = true;
  auto r = TuneTfData(*spec, measure, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto first_raise = std::find_if(r->log.begin(), r->log.end(), [](const std::string& l) {
    return l.find("raise ") != std::string::npos;
  });
  ASSERT_NE(first_raise, r->log.end());
  EXPECT_NE(first_raise->find("raise read's parallelism to 2"), std::string::npos)
      << "a second reader is the model's first gain; got: " << *first_raise;
  EXPECT_GE(r->tuned.ops(0).interleave().num_parallel_calls(), 2);
  EXPECT_LE(r->tuned.ops(1).prefetch().buffer_size(), 2)
      << "read as one file at a time, only the prefetch buffer seemed to help";
}

}  // namespace
}  // namespace pipescope::engine
