// The advisor on the real simulator (advisor.h, advising.h): every piece of advice is a
// change the validator accepts, that the op does not already have, and that gains in the
// simulator beyond the noise; the verdict's suggestion is the first piece. Changes that
// alter what reaches the step are marked with the move rules' sentence.
#include "app/session/advising.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../engine/test_support.h"
#include "app/session/simulated_run.h"
#include "engine/io/tfrecord_writer.h"
#include "engine/spec/pipeline_plan.h"
#include "engine/spec/spec_loader.h"
#include "engine/tuning/advice_candidates.h"
#include "engine/tuning/advisor_findings.h"
#include "engine/tuning/shard_files_advice.h"
#include "instrumentation/trace/device_gaps.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::session {
namespace {

using engine::testing::Spec;

struct Advised {
  trace::RangeAnalysis analysis;  // the simulated run's, its verdict advised
  engine::AdvisorResult result;
};

// `spec` simulated for 5 s on `model`, analysed whole, or with `steady` after its first step
// (as `pipescope-cli simulate` grades it).
trace::RangeAnalysis SimulatedAnalysis(const spec::PipelineSpec& spec, const sim::CostModel& model,
                                       bool steady = false) {
  SimulatedRunOptions options;
  options.sim.duration_s = 5;
  auto run = RunSimulated(spec, model, options);
  EXPECT_TRUE(run.ok()) << run.status().message();
  if (!run.ok()) return {};
  return steady ? trace::AnalyzeSteady(*run->model) : trace::Analyze(*run->model);
}

// `text` simulated on its own costs (as `pipescope-cli simulate` does), then advised.
Advised Advise(const std::string& text, bool steady = false) {
  const spec::PipelineSpec spec = Spec(text);
  auto model = CostModelFor(spec, "");
  EXPECT_TRUE(model.ok()) << model.status().message();
  Advised out;
  out.analysis = SimulatedAnalysis(spec, *model, steady);
  auto advice = AdviseOn(spec, out.analysis, *model);
  EXPECT_TRUE(advice.ok()) << advice.status().message();
  out.result = *advice;
  ApplyAdvice(out.result, out.analysis.verdict);
  return out;
}

// `spec` with its one "%s" replaced by `part`: a spec tried with and without a line.
std::string Filled(std::string spec, const std::string& part) {
  spec.replace(spec.find("%s"), 2, part);
  return spec;
}

const engine::Advice* Find(const Advised& a, const std::string& kind) {
  for (const auto& advice : a.result.advice) {
    if (advice.kind == kind) return &advice;
  }
  return nullptr;
}

// keras#19502: image_dataset_from_directory (Keras 3.2) shuffled 1024 decoded images, behind
// its prefetch: the first step waits for 1024 decodes. Shuffling the file names before the
// decode (the maintainers' fix) brings it in a fraction of the time, keeping the output.
TEST(AdvisingTest, AShuffleOfDecodedImagesIsMovedBeforeTheDecode) {
  const Advised a = Advise(R"(name: "k" budget { cpu_cores: 2 }
      source { name: "image_files" range { stop: 10000 } }
      ops { name: "load_image" map { fn { cpu_work { duration: "150ms" } } num_parallel_calls: -1 } }
      ops { name: "prefetch_images" prefetch { buffer_size: -1 } }
      ops { name: "shuffle_images" shuffle { buffer_size: 1024 } }
      ops { name: "batch" batch { batch_size: 16 } }
      ops { name: "fit_epochs" repeat { count: 10 } }
      train_step { step_time: "150ms" })");
  ASSERT_FALSE(a.result.advice.empty()) << a.analysis.verdict.text;
  const engine::Advice& first = a.result.advice.front();
  EXPECT_EQ(first.kind, "reorder") << first.text;
  EXPECT_EQ(first.change, "move 'shuffle_images' before 'load_image'") << first.text;
  EXPECT_FALSE(first.changes_output) << first.text;
  EXPECT_NE(first.text.find("the first step after "), std::string::npos) << first.text;
  // A prefetch ahead of the decode stays there: the shuffle goes between the two.
  const Advised behind = Advise(R"(name: "k" budget { cpu_cores: 2 }
      source { name: "image_files" range { stop: 10000 } }
      ops { name: "read_ahead" prefetch { buffer_size: 8 } }
      ops { name: "load_image" map { fn { cpu_work { duration: "150ms" } } num_parallel_calls: -1 } }
      ops { name: "shuffle_images" shuffle { buffer_size: 1024 } }
      ops { name: "batch" batch { batch_size: 16 } }
      train_step { step_time: "150ms" })");
  ASSERT_FALSE(behind.result.advice.empty()) << behind.analysis.verdict.text;
  EXPECT_EQ(behind.result.advice.front().change, "move 'shuffle_images' before 'load_image'");
}

// tensorflow#47687: decoded images batched, then shuffled in a buffer larger than the epoch:
// the first step waits for every image of it. Shuffling first (the maintainers' answer)
// brings it in a fraction of the time; it shuffles elements, not batches, and says so. It
// leads the verdict's suggestion, whatever the steady rate after it.
TEST(AdvisingTest, AShuffleOfBatchesThatHoldsTheEpochIsMovedFirst) {
  const Advised a = Advise(R"(name: "sr" budget { cpu_cores: 2 }
      source { name: "files" range { stop: 400 } }
      ops { name: "load" map { fn { cpu_work { duration: "15ms" } } num_parallel_calls: -1 } }
      ops { name: "batch" batch { batch_size: 16 } }
      ops { name: "shuffle" shuffle { buffer_size: 10000 } }
      ops { name: "prefetch" prefetch { buffer_size: -1 } }
      train_step { step_time: "100ms" })",
                           /*steady=*/true);
  ASSERT_FALSE(a.result.advice.empty()) << a.analysis.verdict.text;
  const engine::Advice& first = a.result.advice.front();
  EXPECT_EQ(first.change, "move 'shuffle' before 'load'") << first.text;
  EXPECT_TRUE(first.changes_output) << first.text;
  EXPECT_FALSE(first.first_step.empty()) << first.text;
  EXPECT_TRUE(a.analysis.verdict.suggestion.starts_with("shuffle before 'load'"))
      << a.analysis.verdict.text;
}

// A program that ends within the simulation (the tf.data guide's benchmarks: two epochs of
// three samples, each a new iterator) is graded on its whole run, start-up and each epoch's
// start included, as its own clock times it: a prefetch there gains what overlapping its
// reads with its steps saves over the run (30 ms to open, then three reads of 15 ms and steps
// of 10 ms: 105 ms an epoch, 85 with the reads ahead of the steps, +24%), where a window of
// its steady part would see next to no steps. The same pipeline endless is graded steady.
TEST(AdvisingTest, AProgramThatEndsIsGradedOnItsWholeRun) {
  const std::string source =
      R"(source { name: "gen" from_generator { records: 3 duration: "0us" wait: "15ms"
                                                first_wait: "30ms" } })";
  const Advised ends = Advise(source + R"(
      ops { name: "epochs" repeat { count: 2 training_loop: true } }
      train_step { step_time: "10ms" })");
  EXPECT_TRUE(ends.result.whole_run);
  EXPECT_NEAR(ends.result.simulated_steps_per_s, 6 / 0.210, 0.5);
  const engine::Advice* prefetch = Find(ends, "prefetch");
  ASSERT_NE(prefetch, nullptr) << ends.analysis.verdict.text;
  EXPECT_NEAR(prefetch->predicted_steps_per_s, 6 / 0.170, 0.5) << prefetch->text;
  EXPECT_NE(prefetch->text.find("steps/s predicted, over the whole run ("), std::string::npos)
      << prefetch->text;
  // Its length said, so that "ends" is not read as the end of a shorter run shown
  // (keras#9332): six steps in 210 ms.
  EXPECT_NE(engine::AdviceHeading(ends.result)
                .find("the program ends within the advisor's simulation (6 steps in 210 ms "
                      "simulated)"),
            std::string::npos)
      << engine::AdviceHeading(ends.result);

  const Advised endless = Advise(source + R"(
      ops { name: "epochs" repeat { training_loop: true } }
      train_step { step_time: "10ms" })");
  EXPECT_FALSE(endless.result.whole_run);
  const engine::Advice* endless_prefetch = Find(endless, "prefetch");
  ASSERT_NE(endless_prefetch, nullptr) << endless.analysis.verdict.text;
  EXPECT_NE(endless_prefetch->text.find("steps/s predicted, steady ("), std::string::npos)
      << endless_prefetch->text;
  // A cache's rate is of the epochs it replays (cache_replay.h).
  const engine::Advice* cache = Find(endless, "cache");
  ASSERT_NE(cache, nullptr) << endless.analysis.verdict.text;
  EXPECT_NE(cache->text.find("steps/s predicted, steady, once the cache holds an epoch ("),
            std::string::npos)
      << cache->text;
}

// A change that lets the program end within the advisor's simulation, where the program as
// given does not, is graded as the given one is: steady, its start-up left out. Twenty
// epochs of 8 spawned workers sent a 256 MiB dataset each epoch (about 8 s of start-ups an
// epoch, the simulation's 120 s too short for them) end within it once the workers persist;
// graded whole, the first epoch's start-up would count against them.
TEST(AdvisingTest, AChangeThatEndsTheProgramIsGradedAsTheGivenOneIs) {
  const Advised a = Advise(R"(
      source { name: "dataset" range { start: 0 stop: 20000 } }
      ops { name: "loader" dataloader { batch_size: 64 num_workers: 8 worker_startup: "90ms"
            start_method: spawn dataset_bytes: 268435456
            getitem { python { duration: "100us" } } } }
      ops { name: "epochs" repeat { count: 20 training_loop: true } }
      train_step { step_time: "10ms" })",
                           /*steady=*/true);
  EXPECT_FALSE(a.result.whole_run);
  const engine::Advice* persistent = Find(a, "persistent_workers");
  ASSERT_NE(persistent, nullptr) << a.analysis.verdict.text;
  auto model = CostModelFor(persistent->spec, "");
  ASSERT_TRUE(model.ok());
  SimulatedRunOptions options;
  options.sim.duration_s = 120;
  auto run = RunSimulated(persistent->spec, *model, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const double steady = trace::AnalyzeSteady(*run->model).steps_per_s;
  EXPECT_NEAR(persistent->predicted_steps_per_s / steady, 1, 0.05)
      << persistent->text << " against " << steady << " steady";
  EXPECT_NE(persistent->text.find("steps/s predicted, steady ("), std::string::npos)
      << persistent->text;
}

// A dataset that lists a path and a class for each of its 100,000 files (ImageFolder's
// samples), sent to 8 spawned workers each epoch: each entry is an object to pickle and
// unpickle beside its bytes, so the same paths and classes in NumPy arrays, which pickle as
// buffers, start the workers sooner; the advice says how, and its spec holds the bytes
// alone.
TEST(AdvisingTest, ADatasetsListOfSamplesIsAdvisedIntoArraysWhereWorkersSpawn) {
  const Advised a = Advise(R"(
      source { name: "dataset" range { start: 0 stop: 100000 } }
      ops { name: "loader" dataloader { batch_size: 256 num_workers: 8 worker_startup: "90ms"
            start_method: spawn dataset_bytes_per_item: 66
            getitem { python { duration: "10us" } } } }
      ops { name: "epochs" repeat { training_loop: true } }
      train_step { step_time: "10ms" })");
  const engine::Advice* arrays = Find(a, "samples_as_arrays");
  ASSERT_NE(arrays, nullptr) << a.analysis.verdict.text;
  EXPECT_GT(arrays->predicted_gain, 0.03) << arrays->text;
  EXPECT_EQ(arrays->spec.ops(0).dataloader().dataset_bytes(), 100000 * 66);
  EXPECT_EQ(arrays->spec.ops(0).dataloader().dataset_bytes_per_item(), 0);
  EXPECT_NE(arrays->text.find("np.array(paths)"), std::string::npos) << arrays->text;
  // Forked workers are sent nothing: no such advice.
  std::string forked = R"(
      source { name: "dataset" range { start: 0 stop: 100000 } }
      ops { name: "loader" dataloader { batch_size: 256 num_workers: 8 worker_startup: "90ms"
            dataset_bytes_per_item: 66 getitem { python { duration: "10us" } } } }
      ops { name: "epochs" repeat { training_loop: true } }
      train_step { step_time: "10ms" })";
  EXPECT_EQ(Find(Advise(forked), "samples_as_arrays"), nullptr);
}

// Files loaded once, in the dataset's __init__, make the dataset object that large: workers
// that spawn are each sent it as they start, every epoch here, so holding the files gains
// less than where workers fork (2,000 items of 64 KiB: 131 MB a worker), and says why.
TEST(AdvisingTest, HoldingFilesInMemoryWeighsTheDatasetSpawnedWorkersAreSent) {
  const std::string loader = R"(
      source { name: "dataset" range { start: 0 stop: 2000 } }
      ops { name: "loader" dataloader { batch_size: 16 num_workers: 4 worker_startup: "90ms"
            %s getitem { python { duration: "200us" wait: "20ms" wait_loads_files: true }
                           output_bytes: 65536 } } }
      ops { name: "epochs" repeat { training_loop: true } }
      train_step { step_time: "20ms" })";
  const Advised forked = Advise(Filled(loader, ""));
  const Advised spawned = Advise(Filled(loader, "start_method: spawn"));
  const engine::Advice* fork_held = Find(forked, "in_memory");
  const engine::Advice* spawn_held = Find(spawned, "in_memory");
  ASSERT_NE(fork_held, nullptr) << forked.analysis.verdict.text;
  ASSERT_NE(spawn_held, nullptr) << spawned.analysis.verdict.text;
  EXPECT_EQ(spawn_held->spec.ops(0).dataloader().dataset_bytes(), 2000 * 65536);
  EXPECT_LT(spawn_held->predicted_gain, 0.8 * fork_held->predicted_gain)
      << spawn_held->text << " against " << fork_held->text;
  EXPECT_NE(spawn_held->text.find("which each worker that starts is sent"), std::string::npos)
      << spawn_held->text;
  EXPECT_EQ(fork_held->text.find("which each worker that starts is sent"), std::string::npos);
}

// tensorflow#47687's shape: 800 files loaded at `load` each, batched by 16 and shuffled in
// a buffer larger than the epoch, for `epochs` epochs of the training loop (each a fresh
// iteration that fills the buffer again; a repeat in the dataset would fuse with the
// shuffle), before a step of 100 ms.
spec::PipelineSpec EpochsInAShuffleBuffer(const std::string& load, int epochs) {
  return Spec(R"(name: "sr" budget { cpu_cores: 2 }
      source { name: "files" range { stop: 800 } }
      ops { name: "load" map { fn { cpu_work { duration: ")" +
              load + R"(" } } num_parallel_calls: -1 } }
      ops { name: "batch" batch { batch_size: 16 } }
      ops { name: "shuffle" shuffle { buffer_size: 10000 } }
      ops { name: "epochs" repeat { count: )" +
              std::to_string(epochs) + R"( training_loop: true } }
      train_step { step_time: "100ms" })");
}

// The same shape over ten epochs: each epoch's 50 batches come in a burst of 5 s after a
// refill of 60 s. The steady rate the advice starts from is the bursts' and refills' (about
// 0.8 steps/s, as the run's own figure), not the rate of a window between two bursts.
TEST(AdvisingTest, StepsInBurstsAreGradedOverTheWholeSteadyPart) {
  const spec::PipelineSpec spec = EpochsInAShuffleBuffer("150ms", 10);
  auto model = CostModelFor(spec, "");
  ASSERT_TRUE(model.ok()) << model.status().message();
  SimulatedRunOptions options;
  options.sim.duration_s = 120;
  options.steps_only = true;
  auto run = SimulateSteadyPart(spec, *model, options, 120);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_GT(run->steady.steps_per_s, 0.5) << run->steady.steps << " steps";
  EXPECT_LT(run->steady.steps_per_s, 1.2) << run->steady.steps << " steps";
}

// Epochs of a 6 s refill (800 loads of 15 ms on 2 cores) and a 5 s burst (50 steps of
// 100 ms): a window from a quarter in to the end cuts a burst or a refill in two, as the run
// happens to end, and read 4.3 to 5.1 steps/s over 40 to 55 s; graded over whole epochs,
// every length reads the same rate, 50 steps an epoch.
TEST(AdvisingTest, EpochsThatRefillAreGradedWholeWhateverTheRunsLength) {
  const spec::PipelineSpec spec = EpochsInAShuffleBuffer("15ms", 100);
  auto model = CostModelFor(spec, "");
  ASSERT_TRUE(model.ok()) << model.status().message();
  std::vector<double> rates;
  for (const double seconds : {40.0, 45.0, 50.0, 55.0}) {
    SimulatedRunOptions options;
    options.sim.duration_s = seconds;
    options.steps_only = true;
    auto run = SimulateSteadyPart(spec, *model, options, seconds);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_GE(run->steady.whole_epochs, 1) << seconds << " s";
    EXPECT_EQ(run->steady.steps % 50, 0) << seconds << " s: " << run->steady.steps << " steps";
    rates.push_back(run->steady.steps_per_s);
  }
  const auto [least, most] = std::minmax_element(rates.begin(), rates.end());
  EXPECT_LT(*most / *least, 1.01) << *least << " to " << *most << " steps/s";
}

// One epoch held whole in a shuffle buffer: with a step that takes no time, its 50 batches
// come out together after a start-up of 6 s (800 loads of 15 ms on 2 cores). What the input
// alone feeds is those steps over the whole run (about 8 steps/s), not their burst's rate.
TEST(AdvisingTest, InputAloneOverAnEpochHeldInTheStartUpCountsTheStartUp) {
  const spec::PipelineSpec spec = EpochsInAShuffleBuffer("15ms", 1);
  auto model = CostModelFor(spec, "");
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto input_alone = SimulatedRateOn(*model, 20, spec)(spec, 1, 0);
  ASSERT_TRUE(input_alone.ok()) << input_alone.status().message();
  EXPECT_GT(*input_alone, 4);
  EXPECT_LT(*input_alone, 20);
}

// tensorflow#31616: import-code left `.window(...)` out; the step looks like the limit. The
// verdict says the window is in no figure, and "the step is the limit" is not sure of itself.
TEST(AdvisingTest, CodeLeftOutIsSaidAndNoAdviceIsSure) {
  const Advised a = Advise(R"pb(name: "w"
                                budget { cpu_cores: 2 }
                                source {
                                  name: "range"
                                  range { stop: 100000 }
                                }
                                ops {
                                  name: "cast"
                                  map { fn { cpu_work { duration: "20us" } } }
                                }
                                ops {
                                  name: "batch"
                                  batch { batch_size: 64 }
                                }
                                ops {
                                  name: "prefetch"
                                  prefetch { buffer_size: 2 }
                                }
                                train_step { step_time: "10ms" }
                                left_out { code: ".window(...)" line: 4 })pb");
  ASSERT_FALSE(a.result.advice.empty()) << a.analysis.verdict.text;
  EXPECT_EQ(a.result.advice.front().kind, "device_bound") << a.analysis.verdict.text;
  EXPECT_EQ(a.result.advice.front().confidence, "low");
  EXPECT_NE(
      a.analysis.verdict.text.find("import-code left `.window(...)` (line 4) out of the spec"),
      std::string::npos)
      << a.analysis.verdict.text;
  EXPECT_EQ(a.analysis.verdict.suggestion.find("a faster training step is what would help"),
            std::string::npos)
      << "said once, by the advice: " << a.analysis.verdict.suggestion;
}

// tensorflow#37178: a py_function's cost the code does not show stands in at 100 us. The
// verdict names the stand-in and its setting; advice on it is at most medium.
TEST(AdvisingTest, StandInCostsAreNamedAndAdviceOnThemIsNotSure) {
  const std::string text = R"(name: "s" budget { cpu_cores: 2 }
      source { name: "files" range { stop: 100000 } }
      ops { name: "load" map { fn { cpu_work { duration: "5ms" } cost_is_stand_in: true } } }
      ops { name: "batch" batch { batch_size: 4 } }
      train_step { step_time: "1ms" })";
  const Advised a = Advise(text);
  ASSERT_FALSE(a.result.advice.empty()) << a.analysis.verdict.text;
  for (const engine::Advice& advice : a.result.advice) {
    EXPECT_NE(advice.confidence, "high") << advice.text;
  }
  EXPECT_NE(a.analysis.verdict.text.find("these figures rest on stand-in costs for load"),
            std::string::npos)
      << a.analysis.verdict.text;
  EXPECT_NE(a.analysis.verdict.text.find("--set load.cost=DURATION"), std::string::npos);
  std::string given = text;
  given.replace(given.find(" cost_is_stand_in: true"), 23, "");
  const Advised measured = Advise(given);
  ASSERT_FALSE(measured.result.advice.empty());
  EXPECT_EQ(measured.result.advice.front().confidence, "high")
      << measured.result.advice.front().text;
  EXPECT_EQ(measured.analysis.verdict.text.find("stand-in"), std::string::npos);
  // The same of a Python generator's next().
  const Advised generator = Advise(R"(name: "g" budget { cpu_cores: 2 }
      source { name: "gen" from_generator { records: -1 duration: "5ms" cost_is_stand_in: true } }
      ops { name: "batch" batch { batch_size: 4 } }
      train_step { step_time: "1ms" })");
  EXPECT_NE(generator.analysis.verdict.text.find("stand-in costs for gen"), std::string::npos)
      << generator.analysis.verdict.text;
  EXPECT_NE(generator.analysis.verdict.text.find("--set gen.cost=DURATION"), std::string::npos);
  for (const engine::Advice& advice : generator.result.advice) {
    EXPECT_NE(advice.confidence, "high") << advice.text;
  }
}

// Items of a second, 8 workers on 8 cores, a step of 600 ms (discuss.pytorch.org 184155): the
// workers keep up but each epoch's new iterator starts with none fetched, so the step waits
// for the first batch of every epoch. One iterator over every epoch's indices ends that
// wait; it is advised, and says that batches then cross the epochs' ends.
// The sampler keeps the loader's order: a shuffling loader's draws a permutation each epoch,
// one in order repeats the indices in order (pytorch#23642's loader did not shuffle).
TEST(AdvisingTest, EveryEpochsFirstBatchWaitIsAdvisedOneIterator) {
  for (const bool shuffled : {true, false}) {
    const Advised a = Advise(std::string(R"(name: "videos" budget { cpu_cores: 8 }
      source { name: "dataset" range { stop: 200 } }
      ops { name: "loader" dataloader { batch_size: 4 num_workers: 8 )") +
                                 (shuffled ? "shuffle: true" : "") + R"(
            getitem { python { duration: "1s" } } } }
      ops { name: "epochs" repeat {} }
      train_step { step_time: "600ms" })",
                             /*steady=*/true);
    const engine::Advice* one = nullptr;
    for (const auto& advice : a.result.advice) {
      if (advice.change == "move 'epochs' before 'loader'") one = &advice;
    }
    ASSERT_NE(one, nullptr) << a.analysis.verdict.text;
    EXPECT_GT(one->predicted_gain, 0.05) << one->text;
    EXPECT_TRUE(one->changes_output) << one->text;
    EXPECT_NE(one->text.find(shuffled ? "sampler=RandomSampler(dataset, num_samples=len(dataset) "
                                        "* epochs)"
                                      : "sampler=list(range(len(dataset))) * epochs"),
              std::string::npos)
        << one->text;
  }
}

// tensorflow#44274: an interleave's function runs Python under the interpreter lock, one call
// at a time (read as a sequential map before it). The remedy is outside the knobs, and it
// leads; the best knob, which gains little, follows it: a second thread, which runs the
// tenth of the function that releases the lock beside the other's Python. A training job's
// elements, more than the simulation reaches: a program of 64 would end, and over its whole
// run no knob gains.
TEST(AdvisingTest, ARemedyOutsideTheKnobsLeadsAKnobThatGainsLittle) {
  const Advised a = Advise(R"(name: "t" budget { cpu_cores: 2 }
      source { name: "range" range { stop: 100000 } }
      ops { name: "map_function" map { fn { python { duration: "25ms" gil_share: 0.9 } }
                                       call_overhead: "9us" } }
      ops { name: "interleave" interleave { per_element { from_element {} }
                                            cycle_length: 4 num_parallel_calls: 4 } }
      train_step { step_time: "0ms" })");
  const trace::Verdict& v = a.analysis.verdict;
  EXPECT_EQ(v.bottleneck, "map_function") << v.text;
  EXPECT_TRUE(v.suggestion.starts_with("map_function runs Python that holds the interpreter lock"))
      << v.text;
  ASSERT_FALSE(a.result.advice.empty()) << v.text;
  EXPECT_LT(a.result.advice.front().predicted_gain, 0.2);
  EXPECT_NE(v.suggestion.find("; of the knobs and order, the best change tried gains little: "),
            std::string::npos)
      << v.text;
}

// Two synchronous maps on one thread: the verdict blames the first, and the best change is a
// thread for the second, which takes the two apart: said beside the first's own best, so the
// two sentences do not seem to disagree.
TEST(AdvisingTest, TheBestChangeToAnotherOpIsSaidBesideTheBlamedOpsOwn) {
  const Advised a = Advise(R"(name: "two_maps" budget { cpu_cores: 2 }
      source { name: "read" synthetic { records: -1 record_bytes: 100 } }
      ops { name: "first" map { fn { cpu_work { duration: "200us" } } } }
      ops { name: "second" map { fn { cpu_work { duration: "200us" } } } }
      ops { name: "batch" batch { batch_size: 64 } }
      train_step { step_time: "10ms" })");
  const trace::Verdict& v = a.analysis.verdict;
  ASSERT_FALSE(a.result.advice.empty()) << v.text;
  const engine::Advice& best = a.result.advice.front();
  ASSERT_EQ(v.bottleneck, "first") << v.text;
  ASSERT_EQ(best.op, "second") << v.text;
  EXPECT_NE(v.suggestion.find("; it gains more than the best change to first itself "
                              "(first.num_parallel_calls=1, +"),
            std::string::npos)
      << v.text;
}

// Where the data's size is a stand-in (import-code's 10,000 records for files the code lists
// at run time), a gain that rests on its short epochs (a shuffle buffer larger than an epoch,
// refilled at each of the training loop's: the epochs put in the dataset right after the
// shuffle) is marked low and said to rest on the size, after the advice whose gain holds with
// epochs 100 times longer (a second thread for the map), and Together leaves it out; with the
// size given, the same pipeline's advice is not marked.
TEST(AdvisingTest, AGainThatRestsOnAStandInSizeIsSaidSo) {
  const std::string ops = R"(
      ops { name: "decode" map { fn { cpu_work { duration: "100us" } } } }
      ops { name: "shuffle" shuffle { buffer_size: 20000 seed: 1 } }
      ops { name: "batch" batch { batch_size: 32 } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      ops { name: "epochs" repeat { training_loop: true } }
      train_step { step_time: "2ms" device: simulated })";
  const Advised stand_in = Advise(R"(name: "s" budget { cpu_cores: 2 }
      source { name: "read" size_is_stand_in: true synthetic { records: 2000 record_bytes: 100 } })" +
                                  ops);
  const engine::Advice* epochs = Find(stand_in, "epochs_in_dataset");
  ASSERT_NE(epochs, nullptr) << stand_in.analysis.verdict.text;
  EXPECT_EQ(epochs->confidence, "low");
  EXPECT_NE(epochs->text.find("This gain rests on the data's size, a stand-in (read.records)"),
            std::string::npos)
      << epochs->text;
  const engine::Advice* parallel = Find(stand_in, "parallelise");
  ASSERT_NE(parallel, nullptr) << stand_in.analysis.verdict.text;
  EXPECT_NE(parallel->confidence, "low") << parallel->text;
  EXPECT_EQ(stand_in.result.advice.back().confidence, "low");
  for (const std::string& kind : stand_in.result.together.kinds) {
    EXPECT_NE(kind, "epochs_in_dataset");
  }

  const Advised given = Advise(R"(name: "s" budget { cpu_cores: 2 }
      source { name: "read" synthetic { records: 2000 record_bytes: 100 } })" +
                               ops);
  for (const engine::Advice& a : given.result.advice) EXPECT_NE(a.confidence, "low") << a.text;
}

// tensorflow#30646's tutorial with 60,000 lines: nothing after the shuffle fetches ahead, so
// the training loop's thread pulls every element and the fill is work it pays at each
// epoch's start or spread over the epoch, the same over whole epochs. The epochs put in the
// dataset come with a prefetch at its end (the maintainer's shuffle_and_repeat, and what the
// verdict says to add first); alone they gained nothing (a window of the steady part that cut
// an epoch showed +13%), so they are never offered without it.
TEST(AdvisingTest, EpochsInTheDatasetComeWithAPrefetchWhereNothingFetchesAhead) {
  const auto tutorial = [](int64_t lines) {
    return Advise(R"(name: "t30646" budget { cpu_cores: 2 }
      source { name: "read" synthetic { records: )" +
                  std::to_string(lines) + R"( record_bytes: 100 } }
      ops { name: "encode_map_fn" map { fn { python { duration: "50us" } } } }
      ops { name: "skip" skip { count: 5000 } }
      ops { name: "shuffle" shuffle { buffer_size: 50000 } }
      ops { name: "padded_batch" padded_batch { batch_size: 64 } }
      ops { name: "fit_epochs" repeat { count: 3 training_loop: true } }
      train_step { step_time: "10ms" device: simulated })");
  };
  const Advised a = tutorial(60000);
  const engine::Advice* epochs = Find(a, "epochs_in_dataset");
  ASSERT_NE(epochs, nullptr) << a.analysis.verdict.text;
  EXPECT_NE(epochs->text.find("and add prefetch(2) at the dataset's end"), std::string::npos)
      << epochs->text;
  const auto& ops = epochs->spec.ops();
  ASSERT_FALSE(ops.empty());
  EXPECT_TRUE(ops[ops.size() - 1].has_prefetch()) << engine::SpecToText(epochs->spec);
  // A prefetch alone leaves each epoch's fill in front of its first step.
  const engine::Advice* prefetch = Find(a, "prefetch");
  if (prefetch) EXPECT_GT(epochs->predicted_gain, prefetch->predicted_gain) << prefetch->text;

  // The tutorial's own 1,265,800 lines: each epoch's 3 s fill is 1.5% of its 200 s, and the
  // epochs in the dataset add no more than that to the prefetch they bring: their gain was
  // the prefetch's (+45%), and the prefetch is the advice.
  const Advised whole = tutorial(1265800);
  EXPECT_EQ(Find(whole, "epochs_in_dataset"), nullptr) << whole.analysis.verdict.text;
  EXPECT_NE(Find(whole, "prefetch"), nullptr) << whole.analysis.verdict.text;
}

// minigo#520's shape: a sequential interleave of files that wait on storage, filling a
// shuffle buffer of 100,000 that no step ends within the simulator's run. With no steady rate
// to rank them, the changes that keep the output are tried on the start-up too: reading the
// files in parallel brings the first step sooner than a smaller buffer, and keeps the output.
TEST(AdvisingTest, WhereNoStepComesReadingInParallelIsTriedOnTheStartUp) {
  const Advised a = Advise(R"(name: "slow_fill" budget { cpu_cores: 2 }
      source { name: "files" range { stop: 400 } }
      ops { name: "read" interleave { per_element { synthetic_file {
        records_per_file: 500 record_bytes: 1000 read_latency: "5ms" } } cycle_length: 16 } }
      ops { name: "shuffle" shuffle { buffer_size: 100000 } }
      ops { name: "batch" batch { batch_size: 256 } }
      train_step { step_time: "10ms" device: simulated })");
  ASSERT_FALSE(a.result.advice.empty()) << a.analysis.verdict.text;
  const engine::Advice& first = a.result.advice.front();
  EXPECT_EQ(first.kind, "interleave_files") << first.text;
  EXPECT_FALSE(first.changes_output);
  EXPECT_NE(first.first_step.find("the first step after"), std::string::npos) << first.text;
  EXPECT_EQ(first.text.find(", then "), std::string::npos) << "no steady rate to compare";
  int parallel_reads = 0;
  for (const auto& advice : a.result.advice) parallel_reads += advice.kind == "interleave_files";
  EXPECT_EQ(parallel_reads, 1) << "one of each kind and op";
}

// A sequential decode on two cores, a step it cannot keep up with.
const char* kSequentialDecode = R"(name: "sequential_decode"
  budget { cpu_cores: 2 }
  source { name: "ids" range { start: 0 stop: 100000000 } }
  ops { name: "decode" map { fn { cpu_work { duration: "2ms" } } num_parallel_calls: 1 } }
  ops { name: "batch" batch { batch_size: 4 } }
  ops { name: "prefetch" prefetch { buffer_size: 2 } }
  train_step { step_time: "5ms" device: simulated })";

TEST(AdvisingTest, AdvisesTheParallelismTheSimulatorConfirms) {
  const Advised a = Advise(kSequentialDecode);
  ASSERT_FALSE(a.result.advice.empty());
  const engine::Advice& first = a.result.advice.front();
  EXPECT_EQ(first.kind, "parallelise");
  EXPECT_EQ(first.change, "decode.num_parallel_calls=2");
  EXPECT_EQ(first.settings, std::vector<std::string>{"decode.num_parallel_calls=2"});
  // Two workers on two cores (which the batching and the step share too): far more batches.
  EXPECT_GT(first.predicted_gain, 0.4);
  EXPECT_FALSE(first.changes_output);
  EXPECT_NE(first.text.find("raise decode's num_parallel_calls 1 → 2"), std::string::npos)
      << first.text;
  EXPECT_EQ(a.analysis.verdict.suggestion, first.text);
  // Never more threads than cores for work that computes.
  for (const auto& advice : a.result.advice) {
    EXPECT_EQ(advice.change.find("num_parallel_calls=4"), std::string::npos) << advice.text;
  }
}

TEST(AdvisingTest, EveryPieceOfAdviceIsValidNewAndGainsBeyondTheNoise) {
  for (const char* text : {kSequentialDecode, R"(name: "storage"
      budget { cpu_cores: 2 }
      source { name: "files" range { start: 0 stop: 64 } }
      ops { name: "read" interleave { per_element { synthetic_file { records_per_file: 200
              record_bytes: 10000 open_latency: "5ms" read_latency: "2ms" } }
            cycle_length: 2 num_parallel_calls: 1 } }
      ops { name: "parse" map { fn { cpu_work { duration: "100us" } } } }
      ops { name: "batch" batch { batch_size: 8 } }
      train_step { step_time: "5ms" device: simulated })"}) {
    const Advised a = Advise(text);
    EXPECT_GE(a.result.noise, 0.03);
    EXPECT_GT(a.result.tried, 0);
    for (const auto& advice : a.result.advice) {
      EXPECT_TRUE(engine::PlanPipeline(advice.spec, 2).ok()) << advice.text;
      EXPECT_NE(engine::SpecToText(advice.spec), engine::SpecToText(Spec(text))) << advice.text;
      EXPECT_GT(advice.predicted_gain, a.result.noise) << advice.text;
      EXPECT_FALSE(advice.text.empty());
    }
  }
}

TEST(AdvisingTest, StorageLatencyGetsParallelReadsNotABusyMachine) {
  const Advised a = Advise(R"(name: "storage"
      budget { cpu_cores: 2 }
      source { name: "files" range { start: 0 stop: 64 } }
      ops { name: "read" interleave { per_element { synthetic_file { records_per_file: 200
              record_bytes: 10000 open_latency: "5ms" read_latency: "2ms" } }
            cycle_length: 2 num_parallel_calls: 1 } }
      ops { name: "batch" batch { batch_size: 8 } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      train_step { step_time: "5ms" device: simulated })");
  const engine::Advice* reads = Find(a, "interleave_files");
  ASSERT_NE(reads, nullptr) << a.analysis.verdict.text;
  EXPECT_GT(reads->predicted_gain, 0.5);
  // Reads wait, so more readers than cores help; each needs a file open.
  EXPECT_NE(reads->change.find("read.cycle_length="), std::string::npos) << reads->change;
  EXPECT_EQ(a.analysis.verdict.text.find("busy with other work"), std::string::npos)
      << a.analysis.verdict.text;
}

// The step is the limit with room to spare: the advice says how much faster a step could be
// before the input limits (its ceiling, simulated with a step that takes no time), and which
// change raises that ceiling next.
TEST(AdvisingTest, ADeviceBoundRunIsToldSoWithTheRoomAFasterStepHas) {
  const Advised a = Advise(R"(name: "device_bound"
      budget { cpu_cores: 2 }
      source { name: "ids" range { start: 0 stop: 100000000 } }
      ops { name: "decode" map { fn { cpu_work { duration: "100us" } } num_parallel_calls: 1 } }
      ops { name: "batch" batch { batch_size: 4 } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      train_step { step_time: "20ms" device: simulated })");
  ASSERT_EQ(a.result.advice.size(), 1u);
  EXPECT_EQ(a.result.advice[0].kind, "device_bound");
  EXPECT_TRUE(a.result.advice[0].change.empty());
  EXPECT_NE(a.analysis.verdict.suggestion.find("the training step is the limit"),
            std::string::npos);
  EXPECT_EQ(a.result.advice[0].text.find("faster too"), std::string::npos)
      << "decode has room: " << a.result.advice[0].text;
  const std::string& text = a.result.advice[0].text;
  EXPECT_NE(text.find("room for a step"), std::string::npos) << text;
  EXPECT_NE(text.find("the next change would be to raise decode's num_parallel_calls 1 → 2"),
            std::string::npos)
      << text;
}

// The step is the limit, and the read just keeps pace with it (busy all the time): the
// input simulated with a step that takes no time feeds no more, so a faster step alone
// would meet the read next; the advice says so, and names the change that raises the read.
TEST(AdvisingTest, AStepThatAnOpJustKeepsPaceWithSaysBothMustGetFaster) {
  const Advised a = Advise(R"(name: "co_limited"
      budget { cpu_cores: 8 }
      source { name: "read" synthetic { records: -1 record_bytes: 102000 read_latency: "100us"
               bandwidth: "200MB/s" } }
      ops { name: "shard" shard { num_shards: 10 index: 0 } }
      ops { name: "parse" map { fn { cpu_work { duration: "14ms" } } num_parallel_calls: 8 } }
      ops { name: "batch" batch { batch_size: 32 drop_remainder: true } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      train_step { step_time: "200ms" device: simulated })");
  ASSERT_EQ(a.result.advice.size(), 1u);
  EXPECT_EQ(a.result.advice[0].kind, "device_bound");
  const std::string& text = a.result.advice[0].text;
  EXPECT_NE(text.find("gains nothing until the input is faster too"), std::string::npos) << text;
  EXPECT_NE(text.find("the change for that is to split read's one file"), std::string::npos)
      << text;
  EXPECT_NE(text.find("it changes the output"), std::string::npos) << text;
}

// Decoding costs the most; a random flip after it makes every epoch different.
const char* kAugmentedEpochs = R"(name: "augmented"
  budget { cpu_cores: 2 }
  source { name: "ids" range { start: 0 stop: 64 } }
  ops { name: "decode" map { fn { cpu_work { duration: "3ms" } } num_parallel_calls: 2 } }
  ops { name: "flip" map { fn { random_flip {} } } }
  ops { name: "batch" batch { batch_size: 8 } }
  ops { name: "repeat" repeat {} }
  ops { name: "prefetch" prefetch { buffer_size: 2 } }
  train_step { step_time: "2ms" device: simulated })";

TEST(AdvisingTest, CachesBeforeTheRandomAugmentationAndKeepsTheOutput) {
  const Advised a = Advise(kAugmentedEpochs);
  const engine::Advice* cache = nullptr;
  for (const auto& advice : a.result.advice) {
    if (advice.kind == "cache" && advice.op == "decode") cache = &advice;
  }
  ASSERT_NE(cache, nullptr) << a.analysis.verdict.text;
  EXPECT_FALSE(cache->changes_output) << cache->what_changes;
  EXPECT_GT(cache->predicted_gain, 1.0);
  // A cache after the flip would freeze it: if it is advised at all, it says so.
  for (const auto& advice : a.result.advice) {
    if (advice.kind == "cache" && advice.op == "flip") {
      EXPECT_TRUE(advice.changes_output);
      EXPECT_NE(advice.what_changes.find("freezes"), std::string::npos) << advice.what_changes;
    }
  }
}

TEST(AdvisingTest, PredictionsAreSteadyRatesThatTheStepTimeBounds) {
  // The shuffle buffer takes 4 s to fill with one decode thread: a 5 s window would be
  // mostly filling. The step takes 20 ms: no change gives more than 50 steps/s.
  const Advised a = Advise(R"(name: "late_first_step"
      budget { cpu_cores: 2 }
      source { name: "ids" range { start: 0 stop: 100000000 } }
      ops { name: "decode" map { fn { cpu_work { duration: "4ms" } } num_parallel_calls: 1 } }
      ops { name: "shuffle" shuffle { buffer_size: 1000 } }
      ops { name: "batch" batch { batch_size: 8 } }
      train_step { step_time: "20ms" device: simulated })");
  // One thread makes 250 elements/s: 31 batches/s in steady state, whatever the filling.
  EXPECT_GT(a.result.simulated_steps_per_s, 25);
  EXPECT_LT(a.result.simulated_steps_per_s, 35);
  ASSERT_FALSE(a.result.advice.empty()) << a.analysis.verdict.text;
  for (const auto& advice : a.result.advice) {
    EXPECT_LE(advice.predicted_steps_per_s, 50.5) << advice.text;
  }
}

// A DataLoader whose __getitem__ waits for storage gains from workers beyond the cores, as
// reads do (four a core at most); one whose __getitem__ computes does not.
TEST(AdvisingTest, LoaderWorkersThatWaitForStorageGoBeyondTheCores) {
  // A loader of `workers` on `cores` whose __getitem__ is `getitem`, before a 20 ms step.
  const auto loader = [](int cores, int workers, const std::string& getitem) {
    return Advise(R"(name: "loader" budget { cpu_cores: )" + std::to_string(cores) + R"( }
      source { name: "dataset" range { stop: 100000 } }
      ops { name: "loader" dataloader { batch_size: 32 persistent_workers: true num_workers: )" +
                  std::to_string(workers) + " getitem { " + getitem + R"( } } }
      ops { name: "epochs" repeat {} }
      train_step { step_time: "20ms" device: simulated })");
  };
  const Advised a = loader(2, 2, R"(io_wait { duration: "5ms" })");
  const engine::Advice* more = Find(a, "more_workers");
  ASSERT_NE(more, nullptr) << a.analysis.verdict.text;
  EXPECT_EQ(more->change, "loader.num_workers=8") << more->text;
  EXPECT_GT(more->predicted_gain, 2) << more->text;
  // The gain rests on the waits overlapping, which one hard disk does not (pytorch#680):
  // said, and not sure.
  EXPECT_NE(more->text.find("it rests on loader's waits overlapping"), std::string::npos)
      << more->text;
  EXPECT_EQ(more->confidence, "medium") << more->text;
  // Workers that compute gain from the cores, whatever the storage: nothing to assume.
  const Advised computing = loader(4, 1, R"(cpu_work { duration: "2ms" })");
  const engine::Advice* cores = Find(computing, "more_workers");
  ASSERT_NE(cores, nullptr) << computing.analysis.verdict.text;
  EXPECT_EQ(cores->text.find("rests on"), std::string::npos) << cores->text;
  // Python that sleeps (the tf.data guide's mapped_function) reads no disk: nothing to assume;
  // Python that loads its files does.
  for (const bool files : {false, true}) {
    const Advised python =
        loader(2, 2,
               std::string(R"(python { duration: "0us" wait: "5ms" )") +
                   (files ? "wait_loads_files: true read_bytes: 100000 }" : "}"));
    const engine::Advice* waits = Find(python, "more_workers");
    ASSERT_NE(waits, nullptr) << python.analysis.verdict.text;
    EXPECT_EQ(waits->text.find("rests on") != std::string::npos, files) << waits->text;
  }
}

// Keras's enqueuer threads whose sequence[i] sleeps (the lock released, no core used) gain
// from workers beyond the cores too: 4 threads of 50 ms batches feed 80 steps/s, 5 feed the
// 10 ms step's 100.
TEST(AdvisingTest, KerasWorkersThatWaitGoBeyondTheCores) {
  const Advised a = Advise(R"(name: "sleeping_sequence"
      budget { cpu_cores: 2 }
      source { name: "indices" range { stop: 100000 } }
      ops { name: "Images" keras_fit { workers: 4
                                       getitem { python { duration: "100us" wait: "50ms" } } } }
      train_step { step_time: "10ms" device: simulated })");
  const engine::Advice* more = Find(a, "more_workers");
  ASSERT_NE(more, nullptr) << a.analysis.verdict.text;
  EXPECT_EQ(more->change, "Images.workers=5") << more->text;
  EXPECT_GT(more->predicted_gain, 0.15) << more->text;
}

// A generator whose yields cost tf.data more than their own Python, batched after it
// (tensorflow#13101): yielding whole batches is advised with the gain the simulator gives it,
// the batch taken out; where tf.data's part is nothing beside the Python, it is not.
TEST(AdvisingTest, AGeneratorBatchedAfterItIsToldToYieldBatches) {
  const std::string spec = R"(name: "generator"
      budget { cpu_cores: 2 }
      source { name: "data_generator" from_generator { records: -1 duration: "5us" %s } }
      ops { name: "batch" batch { batch_size: 128 } }
      ops { name: "prefetch" prefetch { buffer_size: 4 } }
      train_step { step_time: "100us" device: simulated })";
  const auto with = [&](const std::string& overhead) { return Filled(spec, overhead); };
  const Advised a = Advise(with("call_overhead: \"9us\""));
  const engine::Advice* batches = Find(a, "batch_at_source");
  ASSERT_NE(batches, nullptr) << a.analysis.verdict.text;
  EXPECT_EQ(batches->op, "data_generator");
  // 14 us a row (1.8 ms a batch) become 5 (0.65 ms): +177%, the Python still paid a row.
  EXPECT_GT(batches->predicted_gain, 1.2) << batches->text;
  EXPECT_LT(batches->predicted_gain, 2.5) << batches->text;
  EXPECT_EQ(batches->spec.source().from_generator().rows_per_yield(), 128);
  EXPECT_EQ(batches->spec.ops(0).name(), "prefetch") << "the batch taken out";
  EXPECT_NE(batches->text.find("make data_generator yield whole batches of 128"), std::string::npos)
      << batches->text;
  std::string heavy = with("");  // 60 us of Python a row, and nothing of tf.data's
  heavy.replace(heavy.find("\"5us\""), 5, "\"60us\"");
  const Advised python = Advise(heavy);
  EXPECT_EQ(Find(python, "batch_at_source"), nullptr) << python.analysis.verdict.text;
}

// A cache holds an epoch in memory: advised with what it holds where the spec says (20000
// records of 10240 bytes, 209 MB with what tf.data keeps beside each), and not where that is more
// than the RAM budget, which the advice then names as not tried.
TEST(AdvisingTest, ACacheIsAdvisedWithWhatItHoldsAndNeverOverTheRamBudget) {
  const std::string spec = R"(name: "cached_reads" budget { cpu_cores: 2 %s }
      source { name: "read" synthetic { records: 20000 record_bytes: 10240 bandwidth: "50MB/s" } }
      ops { name: "shuffle" shuffle { buffer_size: 1000 } }
      ops { name: "parse" map { fn { cpu_work { duration: "50us" } } num_parallel_calls: 2 } }
      ops { name: "batch" batch { batch_size: 64 } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      ops { name: "epochs" repeat { count: 50 training_loop: true } }
      train_step { step_time: "5ms" })";
  const auto with = [&](const std::string& ram) { return Filled(spec, ram); };
  const Advised roomy = Advise(with("ram_bytes: 1000000000"));
  const engine::Advice* cache = Find(roomy, "cache");
  ASSERT_NE(cache, nullptr) << roomy.analysis.verdict.text;
  EXPECT_NE(cache->text.find("cache the elements after read (an epoch in memory: 20000 "
                             "elements, 209 MB)"),
            std::string::npos)
      << cache->text;
  const Advised tight = Advise(with("ram_bytes: 100000000"));
  EXPECT_EQ(Find(tight, "cache"), nullptr) << Find(tight, "cache")->text;
  ASSERT_FALSE(tight.result.not_tried.empty());
  EXPECT_NE(tight.result.not_tried.back().find("an epoch is 209 MB (20000 elements), more than "
                                               "the RAM budget of 100 MB"),
            std::string::npos)
      << tight.result.not_tried.back();
  // No budget in the spec: the machine's (half its available memory, as the session gives
  // it) is the one a cache must fit, and the note says whose it is (seed 000's 20 GB epoch
  // on a worker).
  const spec::PipelineSpec unbudgeted = Spec(with(""));
  for (const auto& c : engine::AdviceCandidates(unbudgeted, tight.analysis, 2, 100'000'000)) {
    EXPECT_NE(c.kind, "cache") << c.action;
  }
  const auto not_tried = engine::AdvisorNotTried(unbudgeted, 100'000'000);
  ASSERT_FALSE(not_tried.empty());
  EXPECT_NE(not_tried.back().find("more than the RAM budget of 100 MB (half this machine's "
                                  "available memory"),
            std::string::npos)
      << not_tried.back();
  EXPECT_TRUE(engine::AdvisorNotTried(unbudgeted, 1'000'000'000).empty());
}

// A generator whose next() reads a file (tensorflow#39494: one gzip'd pickle a batch, 60 ms
// waiting and 25 ms of Python) is run as copies through an interleave, their waits
// overlapping: 4 copies keep the lock busy (85 / 25), 11.8 steps/s become up to 40, the
// lock's. A generator that is all Python is not: its copies would take turns (tensorflow#14448).
TEST(AdvisingTest, AGeneratorThatWaitsIsRunAsCopiesThroughAnInterleave) {
  const std::string spec = R"(name: "generator_reads"
      budget { cpu_cores: 16 }
      source { name: "train_data" from_generator { records: -1 duration: "25ms" %s } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      train_step { step_time: "15ms" device: simulated })";
  const auto with = [&](const std::string& wait) { return Filled(spec, wait); };
  const Advised a = Advise(with("wait: \"60ms\""));
  const engine::Advice* copies = Find(a, "parallel_generators");
  ASSERT_NE(copies, nullptr) << a.analysis.verdict.text;
  EXPECT_EQ(copies->op, "train_data");
  EXPECT_TRUE(copies->spec.source().has_range());
  EXPECT_EQ(copies->spec.ops(0).interleave().num_parallel_calls(), 4);
  // 1 / 85 ms is 11.8 a second; the lock's 1 / 25 ms is 40, the step's 1 / 15 ms 67.
  EXPECT_GT(copies->predicted_steps_per_s, 30) << copies->text;
  EXPECT_LT(copies->predicted_steps_per_s, 41) << copies->text;
  EXPECT_FALSE(copies->changes_output) << copies->text;  // each copy yields every 4th item
  EXPECT_NE(copies->text.find("tf.data.Dataset.range(4).interleave(lambda i: "
                              "tf.data.Dataset.from_generator(train_data, args=(i, 4)"),
            std::string::npos)
      << copies->text;
  const Advised python = Advise(with(""));
  EXPECT_EQ(Find(python, "parallel_generators"), nullptr) << python.analysis.verdict.text;
}

// The reads that starve the step are an interleave's, in parallel already: its verdict asks
// for more files at once, not for an interleave it has (before advice replaces it).
TEST(AdvisingTest, SlowReadsInsideAnInterleaveAskForMoreFilesAtOnce) {
  const spec::PipelineSpec spec = Spec(R"(name: "interleaved_reads"
      budget { cpu_cores: 4 }
      source { name: "files" range { start: 0 stop: 64 } }
      ops { name: "read" interleave { per_element { synthetic_file { records_per_file: 1000
              record_bytes: 1000 read_latency: "5ms" } } cycle_length: 2 num_parallel_calls: 2 } }
      ops { name: "batch" batch { batch_size: 8 } }
      train_step { step_time: "1ms" device: simulated })");
  auto model = CostModelFor(spec, "");
  ASSERT_TRUE(model.ok()) << model.status().message();
  const trace::RangeAnalysis analysis = SimulatedAnalysis(spec, *model);
  const trace::Verdict& v = analysis.verdict;
  EXPECT_NE(v.suggestion.find("raise read's cycle_length"), std::string::npos) << v.text;
  EXPECT_EQ(v.suggestion.find("interleave over the input files"), std::string::npos) << v.text;
  // The per-file reads run two at a time, as the interleave's workers read them, and the
  // verdict and the table say so (tensorflow/models#7127's 16 readers read as "parallelism 1").
  const auto reads = std::find_if(analysis.stages.begin(), analysis.stages.end(),
                                  [](const auto& s) { return s.name == "read.read"; });
  ASSERT_NE(reads, analysis.stages.end());
  EXPECT_NEAR(reads->parallelism, 2, 1e-9);
  EXPECT_NE(v.evidence.find("with parallelism 2"), std::string::npos) << v.text;
}

TEST(AdvisingTest, AShardThatReadsEverythingIsNamedAndTheFileListShardTried) {
  const Advised a = Advise(R"(name: "late_shard"
      budget { cpu_cores: 2 }
      source { name: "files" range { start: 0 stop: 16 } }
      ops { name: "read" interleave { per_element { synthetic_file { records_per_file: 100
              record_bytes: 10000 read_latency: "1ms" } } cycle_length: 2 num_parallel_calls: 2 } }
      ops { name: "shard" shard { num_shards: 4 index: 1 } }
      ops { name: "batch" batch { batch_size: 8 } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      train_step { step_time: "5ms" device: simulated })");
  ASSERT_EQ(a.result.findings.size(), 1u);
  EXPECT_NE(a.result.findings[0].find("shard keeps 25%"), std::string::npos)
      << a.result.findings[0];
  // There are 16 files to shard already: nothing to split.
  EXPECT_EQ(a.result.findings[0].find("single file"), std::string::npos) << a.result.findings[0];
  EXPECT_NE(a.analysis.verdict.evidence.find("shard the file list"), std::string::npos)
      << a.analysis.verdict.text;
  const engine::Advice* earlier = Find(a, "shard_earlier");
  ASSERT_NE(earlier, nullptr) << a.analysis.verdict.text;
  EXPECT_EQ(earlier->change, "move 'shard' before 'read'");
  EXPECT_GT(earlier->predicted_gain, 1.0);  // a quarter of the reads
  EXPECT_TRUE(earlier->changes_output);     // each worker gets other elements
}

// A Python map moved after batch costs its rows (the vectorise candidate's own function):
// its prediction is what the advised spec simulates at, not the map's old cost per call
// applied to a whole batch (py_function_small with a step of nothing: 16666.7 predicted
// where the advised spec ran 2666.7).
TEST(AdvisingTest, AVectorisedPythonMapIsPredictedAtWhatItsSpecSimulates) {
  const char* text = R"(name: "py_small"
      source { name: "numbers" range { start: 0 stop: 100000000 } }
      ops { name: "parse" map { fn { python { duration: "5us" } } num_parallel_calls: 1
                                call_overhead: "40us" } }
      ops { name: "batch" batch { batch_size: 64 } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      train_step { step_time: "0s" device: simulated })";
  const Advised a = Advise(text);
  const engine::Advice* v = Find(a, "vectorise");
  ASSERT_NE(v, nullptr) << a.analysis.verdict.text;
  auto model = CostModelFor(v->spec, "");
  ASSERT_TRUE(model.ok());
  auto rate = SimulatedRateOn(*model)(v->spec, 1, 1);
  ASSERT_TRUE(rate.ok());
  EXPECT_NEAR(v->predicted_steps_per_s / *rate, 1, 0.05)
      << v->text << " against " << *rate << " simulated";
}

// A shard of file names reads only the files it keeps: nothing is wasted, nothing said
// (lesson 6's solution drew "each of the 2 workers reads all of them"). A shard after an
// unseeded shuffle is said to overlap the workers' shares (lesson 6's start).
TEST(AdvisingTest, AShardOfFileNamesWastesNothingAndOneAfterAShuffleOverlaps) {
  const char* shard_first = R"(name: "shard_first"
      budget { cpu_cores: 4 }
      source { name: "files" range { start: 0 stop: 32 } }
      ops { name: "shard" shard { num_shards: 2 index: 0 } }
      ops { name: "read" interleave { per_element { synthetic_file { records_per_file: 50
              record_bytes: 4096 open_latency: "2ms" read_latency: "100us" } } cycle_length: 4
              num_parallel_calls: 4 } }
      ops { name: "batch" batch { batch_size: 16 drop_remainder: true } }
      ops { name: "epochs" repeat {} }
      train_step { step_time: "4ms" device: simulated })";
  const Advised first = Advise(shard_first);
  EXPECT_TRUE(first.result.findings.empty()) << first.result.findings[0];
  std::string shuffled = shard_first;
  shuffled.replace(shuffled.find("ops { name: \"shard\""), 0,
                   "ops { name: \"shuffle\" shuffle { buffer_size: 32 } }\n");
  const Advised after = Advise(shuffled);
  ASSERT_EQ(after.result.findings.size(), 1u);
  EXPECT_NE(after.result.findings[0].find("shard comes after shuffle, which has no seed: each of "
                                          "the 2 workers shuffles in an order of its own"),
            std::string::npos)
      << after.result.findings[0];
  // With a seed every worker shuffles alike: nothing to say.
  std::string seeded = shuffled;
  seeded.replace(seeded.find("buffer_size: 32 }"), 17, "buffer_size: 32 seed: 7 }");
  EXPECT_TRUE(Advise(seeded).result.findings.empty());
}

// One file sharded after it is read (tf.data's DATA sharding): each of 4 workers reads all
// of it to keep a quarter. The file split into many and their list sharded is tried, and
// the simulator finds each worker reading only its own files, several at a time.
TEST(AdvisingTest, OneFileReadByEveryWorkerIsSplitAndItsListSharded) {
  const Advised a = Advise(R"(name: "one_file"
      budget { cpu_cores: 2 }
      source { name: "read" synthetic { records: -1 record_bytes: 10000 read_latency: "1ms" } }
      ops { name: "shard" shard { num_shards: 4 index: 0 } }
      ops { name: "batch" batch { batch_size: 8 } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      train_step { step_time: "5ms" device: simulated })");
  const engine::Advice* split = Find(a, "split_files");
  ASSERT_NE(split, nullptr) << a.analysis.verdict.text;
  EXPECT_EQ(split->op, "shard");
  EXPECT_EQ(split->change, "split 'read' into 8 files, shard the file list");
  EXPECT_NE(split->text.find("each of the 4 workers reads its 2 files at once"), std::string::npos)
      << split->text;
  EXPECT_NE(split->text.find("instead of every 4th record of one file"), std::string::npos)
      << split->text;
  EXPECT_GT(split->predicted_gain, 3.0);  // a quarter of the reads, two files at a time
  EXPECT_TRUE(split->changes_output);     // each worker gets whole files
  EXPECT_NE(split->text.find("It changes the output. Each worker gets whole files"),
            std::string::npos)
      << split->text;
  ASSERT_EQ(a.result.findings.size(), 1u);
  EXPECT_NE(a.result.findings[0].find("(split the single file into many"), std::string::npos)
      << a.result.findings[0];
  // The verdict suggests it, ending with the sentence of what changes and its one full stop.
  EXPECT_EQ(a.analysis.verdict.suggestion, split->text);
  EXPECT_TRUE(a.analysis.verdict.text.ends_with("several files at a time."))
      << a.analysis.verdict.text;
  // The advised pipeline: the list of 8 files, the shard, then a reader of each file.
  ASSERT_EQ(split->spec.ops_size(), 4);
  EXPECT_EQ(split->spec.source().range().stop(), 8);
  EXPECT_EQ(split->spec.ops(0).name(), "shard");
  const auto& reader = split->spec.ops(1).interleave();
  EXPECT_EQ(reader.num_parallel_calls(), 2);
  EXPECT_EQ(reader.per_element().synthetic_file().read_latency(), "1ms");
  EXPECT_EQ(reader.per_element().synthetic_file().records_per_file(), -1);
}

// A source of several TFRecord files sharded after reading: the file list is sharded
// instead, each worker reading its own files through an interleave (shard_earlier).
TEST(AdvisingTest, TheFilesOfASourceAreShardedBeforeTheyAreRead) {
  const std::string dir = ::testing::TempDir() + "/shard_files_advice";
  std::filesystem::create_directories(dir);
  std::string files;
  for (int f = 0; f < 8; ++f) {
    const std::string path = dir + "/part-" + std::to_string(f) + ".tfrecord";
    auto w = engine::TfRecordWriter::Create(path, engine::Compression::kNone);
    ASSERT_TRUE(w.ok()) << w.status().message();
    for (int r = 0; r < 200; ++r) ASSERT_TRUE((*w)->Write(std::string(10000, 'x')).ok());
    ASSERT_TRUE((*w)->Close().ok());
    files += " files: \"" + path + "\"";
  }
  const Advised a = Advise(R"(name: "files_sharded_late"
      budget { cpu_cores: 2 }
      source { name: "read" tfrecord {)" +
                           files + R"( } }
      ops { name: "shard" shard { num_shards: 4 index: 0 } }
      ops { name: "epochs" repeat {} }
      ops { name: "batch" batch { batch_size: 8 } }
      train_step { step_time: "100us" device: simulated })");
  const engine::Advice* earlier = Find(a, "shard_earlier");
  ASSERT_NE(earlier, nullptr) << a.analysis.verdict.text;
  EXPECT_EQ(earlier->change, "shard the file list before 'read'");
  EXPECT_GT(earlier->predicted_gain, 1.0);
  EXPECT_EQ(earlier->spec.source().from_tensor_slices().strings_size(), 8);
  EXPECT_EQ(earlier->spec.ops(0).name(), "shard");
  EXPECT_TRUE(earlier->spec.ops(1).interleave().per_element().has_tfrecord_file());
}

// FILE sharding gives worker i the files i, i + n, ...: 10 files over 4 workers are
// uneven (2 workers read 3, 2 read 2), and the advice says so; 8 files are even.
TEST(AdvisingTest, AnUnevenShareOfFilesIsSaid) {
  auto with_files = [](int files) {
    std::string text = R"(name: "uneven" source { name: "read" tfrecord {)";
    for (int f = 0; f < files; ++f) text += " files: \"part-" + std::to_string(f) + "\"";
    return Spec(text + R"( } }
        ops { name: "shard" shard { num_shards: 4 index: 0 } }
        train_step { step_time: "1ms" device: simulated })");
  };
  const auto uneven = engine::ShardTheFiles(with_files(10), 2);
  ASSERT_TRUE(uneven.has_value());
  EXPECT_NE(uneven->action.find("interleave over each worker's 2 or 3 files"), std::string::npos)
      << uneven->action;
  EXPECT_NE(uneven->action.find(
                "10 files over 4 workers are uneven: 2 workers read 3 files, 2 read 2 and finish "
                "each epoch first"),
            std::string::npos)
      << uneven->action;
  const auto even = engine::ShardTheFiles(with_files(8), 2);
  ASSERT_TRUE(even.has_value());
  EXPECT_EQ(even->action.find("uneven"), std::string::npos) << even->action;
}

// An epoch of 315 steps takes about 40 s: the workers' start-up at each epoch (8 s) is
// only seen by a simulation that crosses an epoch's end (github.com/boreshkinai/
// delta-interpolator/pull/3: persistent_workers=True, 7.6 -> 9.5 it/s).
TEST(AdvisingTest, ChangesThatPayFromTheSecondEpochAreSeen) {
  const Advised a = Advise(R"(name: "long_epochs"
      budget { cpu_cores: 8 }
      source { name: "clips" synthetic { records: 10080 record_bytes: 20000 } }
      ops { name: "loader" dataloader { batch_size: 32 num_workers: 4
            getitem { python { duration: "3ms" gil_share: 0.5 } }
            collate { python { duration: "2ms" } } worker_startup: "8s" } }
      ops { name: "epochs" repeat {} }
      train_step { step_time: "105ms" device: simulated })");
  const engine::Advice* persistent = Find(a, "persistent_workers");
  ASSERT_NE(persistent, nullptr) << a.analysis.verdict.text;
  EXPECT_GT(persistent->predicted_gain, 0.1);
}

// A loader made anew each epoch (in the epochs' loop) starts its workers every epoch whatever
// persistent_workers says: the advice is to make it once, before the loop, with them kept,
// which the simulation confirms; persistent_workers=True alone is not offered, as it gains
// nothing there.
TEST(AdvisingTest, ALoaderMadeEachEpochIsAdvisedToBeMadeOnce) {
  for (const std::string persistent : {"true", "false"}) {
    const Advised a = Advise(R"(name: "made_each_epoch"
      budget { cpu_cores: 8 }
      source { name: "clips" synthetic { records: 10080 record_bytes: 20000 } }
      ops { name: "loader" dataloader { batch_size: 32 num_workers: 4 made_each_epoch: true
            persistent_workers: )" +
                             persistent + R"(
            getitem { python { duration: "3ms" gil_share: 0.5 } }
            collate { python { duration: "2ms" } } worker_startup: "8s" } }
      ops { name: "epochs" repeat {} }
      train_step { step_time: "105ms" device: simulated })");
    const engine::Advice* once = Find(a, "persistent_workers");
    ASSERT_NE(once, nullptr) << persistent << "\n" << a.analysis.verdict.text;
    EXPECT_EQ(once->change, "loader.made_each_epoch=false, loader.persistent_workers=true");
    EXPECT_TRUE(once->needs_code_change);
    EXPECT_NE(once->text.find("once, before the epochs' loop"), std::string::npos) << once->text;
    EXPECT_GT(once->predicted_gain, 0.1) << persistent;
  }
}

// deit#81: num_workers 32 in each of 8 GPUs' processes on 32 cores, 4 cores a process. The
// workers take turns on the cores, and the answer was 4 each: advised, and it gains where
// the input is the limit (a 60 ms step). Time-slicing costs a little per doubling of the
// workers past the cores, so the gain is the 8% that 32 workers lose on 4 cores, not more.
TEST(AdvisingTest, MoreWorkerProcessesThanCoresAreCutToTheCores) {
  const std::string deit = R"(name: "deit"
      %s
      source { name: "dataset" range { stop: 160146 } }
      ops { name: "loader" dataloader { batch_size: 128 num_workers: 32 pin_memory: true
            getitem { python { duration: "2325us" } output_bytes: 602112 } } }
      ops { name: "epochs" repeat { count: 300 } }
      train_step { step_time: "60ms" device: simulated })";
  const auto with = [&](const std::string& budget) {
    std::string text = deit;
    text.replace(text.find("%s"), 2, budget);
    return text;
  };
  const Advised a = Advise(with("budget { cpu_cores: 4 }"), /*steady=*/true);
  const engine::Advice* fewer = Find(a, "fewer_workers");
  ASSERT_NE(fewer, nullptr) << a.analysis.verdict.text;
  EXPECT_EQ(fewer->change, "loader.num_workers=4");
  EXPECT_GT(fewer->predicted_gain, 0.05);
  EXPECT_NE(fewer->text.find("(the cores there are)"), std::string::npos) << fewer->text;
  // No budget: the cores are the machine's that advises, which the change says (vision#81:
  // a laptop's two, where the machine that trains had more).
  bool said = false;
  for (const auto& c : engine::AdviceCandidates(Spec(with("")), a.analysis, 4, 1'000'000'000)) {
    if (c.kind != "fewer_workers" || c.change != "loader.num_workers=4") continue;
    said = true;
    EXPECT_NE(c.action.find("(this machine's 4 cores, as the spec sets no budget)"),
              std::string::npos)
        << c.action;
  }
  EXPECT_TRUE(said);
}

// tensorflow#40502: skip(10000) over files the code globs, whose stand-in is 10,000 records:
// no step comes, and the verdict says the stand-in's size is why, with the setting.
TEST(AdvisingTest, NoInputFromAStandInsSizeSaysSo) {
  const std::string spec = R"(name: "skipped"
      budget { cpu_cores: 2 }
      source { name: "read" synthetic { records: 10000 record_bytes: 10 } %s }
      ops { name: "skip" skip { count: 10000 } }
      ops { name: "decode" map { fn { cpu_work { duration: "20us" } } } }
      train_step { step_time: "1ms" device: simulated })";
  const Advised stand_in = Advise(Filled(spec, "size_is_stand_in: true"));
  EXPECT_NE(stand_in.analysis.verdict.text.find("the source's size is a stand-in"),
            std::string::npos)
      << stand_in.analysis.verdict.text;
  EXPECT_NE(stand_in.analysis.verdict.text.find("--set read.records=N"), std::string::npos);
  const Advised given = Advise(Filled(spec, ""));
  EXPECT_EQ(given.analysis.verdict.text.find("stand-in"), std::string::npos)
      << given.analysis.verdict.text;
}

// tensorflow#40502: records of 10 bytes taken one at a time by an eager Python loop that does
// nothing with them. Its next() (train_step.loop_python) is the limit, not the reads: the
// verdict says the loop, and the advice batches before it, next() then once a batch. With a
// step of 10 ms beside it the loop's Python is little of the time: neither is said.
TEST(AdvisingTest, AnEagerLoopsNextPerElementIsTheLimitAndBatchingBeforeItTheAdvice) {
  const std::string spec = R"(name: "gerbil"
      budget { cpu_cores: 2 }
      source { name: "read" synthetic { records: 400000 record_bytes: 10 } }
      train_step { step_time: "%s" loop_python: "14us" })";
  const Advised a = Advise(Filled(spec, "0ms"), /*steady=*/true);
  EXPECT_EQ(a.analysis.verdict.grade, "loop-bound") << a.analysis.verdict.text;
  EXPECT_NE(a.analysis.verdict.text.find("the training loop's own work between steps takes"),
            std::string::npos)
      << a.analysis.verdict.text;
  const engine::Advice* batch = Find(a, "batch_for_the_loop");
  ASSERT_NE(batch, nullptr) << a.analysis.verdict.text;
  EXPECT_TRUE(batch->needs_code_change);
  EXPECT_TRUE(batch->changes_output);
  EXPECT_GT(batch->predicted_gain, 2.0) << batch->text;
  // Its spec's steps are batches; its rate counts the elements, as the given spec's steps.
  ASSERT_GT(batch->spec.ops_size(), 0);
  EXPECT_TRUE(batch->spec.ops(batch->spec.ops_size() - 1).has_batch());
  EXPECT_GT(batch->steps_per_step, 1);
  EXPECT_EQ(a.result.advice.front().kind, "batch_for_the_loop");
  // The tf.data guide's program of six elements in all: no batch of 64 or more fills, and a
  // batch's step costs its rows' steps however few it holds: not offered.
  const Advised six = Advise(R"(name: "guide"
      budget { cpu_cores: 2 }
      source { name: "_generator" from_generator { records: 3 duration: "0us"
               wait: "15ms" first_wait: "30ms" } }
      ops { name: "epochs" repeat { count: 2 training_loop: true } }
      train_step { step_time: "10ms" loop_python: "14us" })");
  EXPECT_EQ(Find(six, "batch_for_the_loop"), nullptr) << six.analysis.verdict.text;
  // A size that stands in (import-code's, for files the code lists at run time) says nothing
  // of the real data's: batching is tried whatever it is.
  const Advised stand_in = Advise(R"(name: "gerbil"
      budget { cpu_cores: 2 }
      source { name: "read" size_is_stand_in: true synthetic { records: 900 record_bytes: 10 } }
      train_step { step_time: "0ms" loop_python: "14us" })",
                                  /*steady=*/true);
  EXPECT_NE(Find(stand_in, "batch_for_the_loop"), nullptr) << stand_in.analysis.verdict.text;

  const Advised stepped = Advise(Filled(spec, "10ms"), /*steady=*/true);
  EXPECT_NE(stepped.analysis.verdict.grade, "loop-bound") << stepped.analysis.verdict.text;
  EXPECT_EQ(Find(stepped, "batch_for_the_loop"), nullptr) << stepped.analysis.verdict.text;
  // A loop with no Python of its own that sleeps until each 50 µs step ends and wakes late
  // leaves the device idle as long, working through none of it: not loop-bound.
  const Advised asleep = Advise(R"(name: "short_steps"
      budget { cpu_cores: 2 }
      source { name: "read" range { stop: 100000000 } }
      ops { name: "prefetch" prefetch { buffer_size: 4 } }
      train_step { step_time: "50us" })",
                                /*steady=*/true);
  EXPECT_GT(asleep.analysis.device_gaps.by_cause_ns.at(trace::kHostBetweenSteps),
            asleep.analysis.duration_s * 1e9 / 2)
      << asleep.analysis.verdict.text;
  EXPECT_NE(asleep.analysis.verdict.grade, "loop-bound") << asleep.analysis.verdict.text;
}

// tensorflow#42917's Session.run loop over batches of 3 strings, split by a map of three
// threads: the loop's 90 us an iteration is the limit, and no change of knobs or order
// gains. The advice says the loop, not the step (which takes no time: a faster one would
// leave the loop as it is), and for a dataset batched already, a larger batch.
TEST(AdvisingTest, ALoopBoundRunIsNotSaidToWaitForItsStep) {
  const Advised a = Advise(R"(name: "t42917"
      budget { cpu_cores: 8 }
      source { name: "lines" range { stop: 100000000 } }
      ops { name: "batch" batch { batch_size: 3 } }
      ops { name: "split" map { fn { cpu_work { duration: "1us" } } call_overhead: "200us"
                                num_parallel_calls: 3 } }
      train_step { step_time: "0ms" loop_python: "90us" })",
                           /*steady=*/true);
  EXPECT_EQ(a.analysis.verdict.grade, "loop-bound") << a.analysis.verdict.text;
  ASSERT_FALSE(a.result.advice.empty()) << a.analysis.verdict.text;
  const engine::Advice& first = a.result.advice.front();
  EXPECT_EQ(first.kind, "loop_bound") << first.text;
  EXPECT_EQ(Find(a, "device_bound"), nullptr);
  EXPECT_EQ(a.analysis.verdict.suggestion.find("a faster step (or"), std::string::npos)
      << a.analysis.verdict.suggestion;
  EXPECT_NE(a.analysis.verdict.suggestion.find("a larger batch_size"), std::string::npos)
      << a.analysis.verdict.suggestion;
}

// mmpose#923: workers that take a minute to start again at each epoch, whose epochs (60 s of
// start-up and 80 s of steps) are longer than the 120 s advice simulates at most. Graded
// inside one epoch, the pipeline ran at the steps' rate and persistent_workers gained
// nothing; graded over whole epochs, the start-ups are a third of the time.
TEST(AdvisingTest, EpochsLongerThanTheAdvicesRunAreSimulatedWhole) {
  const Advised a = Advise(R"(name: "slow_start"
      budget { cpu_cores: 12 }
      source { name: "dataset" range { stop: 20000 } }
      ops { name: "loader" dataloader { batch_size: 64 num_workers: 2 worker_startup: "60s"
            getitem { python { duration: "6ms" } } } }
      ops { name: "epochs" repeat { count: 100 } }
      train_step { step_time: "250ms" device: simulated })",
                           /*steady=*/true);
  const engine::Advice* persistent = Find(a, "persistent_workers");
  ASSERT_NE(persistent, nullptr) << a.analysis.verdict.text;
  EXPECT_GT(persistent->predicted_gain, 0.3);
  // From the rate over whole epochs, start-ups counted (313 steps of 250 ms and 60 s of
  // start-up an epoch, about 2.3 steps/s) to about the 4 within an epoch.
  EXPECT_GT(persistent->predicted_steps_per_s, 3.5);
  EXPECT_LT(persistent->predicted_steps_per_s / (1 + persistent->predicted_gain), 3.0);
}

// tensorflow#30646's pipeline: a shuffle buffer of 50000 refilled at each of fit's epochs.
// The spec's run is lengthened to hold its epochs' starts; a candidate (a map made
// asynchronous, whose events are more) is graded over that same span, not inside one epoch,
// where the refill never shows: a change of nothing is no gain.
TEST(AdvisingTest, CandidatesAreGradedOverTheSpansTheSpecIs) {
  const Advised a = Advise(R"(name: "text"
      source { name: "read" synthetic { records: 200000 record_bytes: 45 } }
      ops { name: "parse" map { fn { cpu_work { duration: "50us" } } call_overhead: "9us" } }
      ops { name: "shuffle" shuffle { buffer_size: 50000 } }
      ops { name: "batch" batch { batch_size: 64 } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      ops { name: "fit_epochs" repeat { count: 3 training_loop: true } }
      train_step { step_time: "10ms" device: simulated })",
                           /*steady=*/true);
  ASSERT_FALSE(a.result.advice.empty()) << a.analysis.verdict.text;
  for (const engine::Advice& advice : a.result.advice) {
    for (const std::string& setting : advice.settings) {
      EXPECT_NE(setting, "parse.num_parallel_calls=1") << advice.text;
    }
  }
  EXPECT_NE(Find(a, "epochs_in_dataset"), nullptr) << a.analysis.verdict.text;
}

// tensorflow#20068: audio files on a gcsfuse mount, read by a map beside 2 ms of decode each,
// the mount's 60 ms an access given as the spec's disk. The map's threads wait on the disk,
// which the verdict says (not a machine busy with other work), and the advice raises the
// parallelism to the reads the disk serves at once, the thread's own fix.
TEST(AdvisingTest, AMapWaitingOnARemoteMountIsGivenMoreThreads) {
  const Advised a = Advise(R"(name: "t20068" budget { cpu_cores: 8 }
      source { name: "names" range { stop: 1000000 } }
      ops { name: "decode" map { fn { cpu_work { duration: "2ms" read_bytes: 100000 } }
            num_parallel_calls: 8 } }
      ops { name: "batch" batch { batch_size: 100 } }
      storage { kind: hdd access_time: "60ms" bandwidth: "200MB/s" queue_depth: 64 }
      train_step { step_time: "50ms" device: simulated })",
                           /*steady=*/true);
  EXPECT_NE(a.analysis.verdict.text.find("they wait (a read, a request, a sleep), not for a core"),
            std::string::npos)
      << a.analysis.verdict.text;
  const engine::Advice* parallel = Find(a, "parallelise");
  ASSERT_NE(parallel, nullptr) << a.analysis.verdict.text;
  EXPECT_GT(parallel->spec.ops(0).map().num_parallel_calls(), 32) << parallel->text;
  EXPECT_GT(parallel->predicted_gain, 3.0) << parallel->text;
}

// Batches of 4 MiB unpickled on the main thread between steps: pin_memory moves that to its
// thread, for a step on a device. Training on the CPU (seed 003's "using only CPU") torch
// drops pin_memory, and it is never advised.
TEST(AdvisingTest, PinMemoryIsAdvisedOnlyForAStepOnAnAccelerator) {
  const auto advised = [](const std::string& device) {
    return Advise(R"(name: "big_batches" budget { cpu_cores: 4 }
        source { name: "items" synthetic { records: -1 record_bytes: 1048576 } }
        ops { name: "loader" dataloader { batch_size: 4 num_workers: 2 persistent_workers: true
              worker_startup: "0s" receive_per_mb: "5ms"
              getitem { python { duration: "1ms" } } } }
        train_step { step_time: "20ms" device: )" +
                  device + " }");
  };
  const Advised gpu = advised("gpu");
  const engine::Advice* pin = Find(gpu, "pin_memory");
  ASSERT_NE(pin, nullptr) << gpu.analysis.verdict.text;
  EXPECT_GT(pin->predicted_gain, 0.3);
  const Advised cpu = advised("cpu");
  EXPECT_EQ(Find(cpu, "pin_memory"), nullptr) << cpu.analysis.verdict.text;
}

// A pipeline of many steps a second is simulated for enough steps, not for five seconds of
// them: millions of steps for each change took minutes and gigabytes (a source and three
// cheap maps feeding a step of no time, stress/many_events.pbtxt, opened in the GUI).
TEST(AdvisingTest, APipelineOfManyStepsASecondIsSimulatedForEnoughOfThem) {
  const spec::PipelineSpec spec = Spec(kSequentialDecode);
  auto model = CostModelFor(spec, "");
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(*AdviceSeconds(spec, *model), kAdviceSimulatedSeconds) << "nothing measured";
  EXPECT_EQ(*AdviceSeconds(spec, *model, 200), kAdviceSimulatedSeconds) << "1,000 steps in 5 s";
  EXPECT_DOUBLE_EQ(*AdviceSeconds(spec, *model, 10'000), kAdviceEnoughSteps / 10'000);
  EXPECT_EQ(*AdviceSeconds(spec, *model, 3'000'000), kAdviceLeastSimulatedSeconds);
}

// The candidates' runs are measured by their rate alone: their models keep the steps and
// the consumer's waits, and give the rate a full model gives.
TEST(AdvisingTest, ACandidatesRunKeepsItsStepsAndWaitsAndTheirRate) {
  const spec::PipelineSpec spec = Spec(kSequentialDecode);
  auto model = CostModelFor(spec, "");
  ASSERT_TRUE(model.ok());
  SimulatedRunOptions full;
  full.sim.duration_s = 2;
  SimulatedRunOptions steps = full;
  steps.steps_only = true;
  auto all = RunSimulated(spec, *model, full);
  auto kept = RunSimulated(spec, *model, steps);
  ASSERT_TRUE(all.ok() && kept.ok());
  EXPECT_LT(kept->model->event_count() * 3, all->model->event_count());
  for (const auto& track : kept->model->tracks()) {
    const record::EventKind kind = track->key().kind;
    EXPECT_TRUE(kind == record::EventKind::kStep || kind == record::EventKind::kInputWait)
        << record::KindLabel(kind);
  }
  const trace::RangeAnalysis a = trace::AnalyzeSteady(*all->model);
  const trace::RangeAnalysis b = trace::AnalyzeSteady(*kept->model);
  EXPECT_GT(a.steps, 100);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_DOUBLE_EQ(a.steps_per_s, b.steps_per_s);
  EXPECT_DOUBLE_EQ(a.input_wait_fraction, b.input_wait_fraction);
}

// A simulation on a cost model file (a lesson's model.json, `simulate --model`) names the
// file in its trace; advice on that trace loads the same costs again. On the spec's own
// costs the 150 us per call of lesson 3's normalize was lost and the advice found nothing.
TEST(AdvisingTest, AdviceOnASimulatedTraceUsesTheCostModelFileItRanOn) {
  const std::string path = ::testing::TempDir() + "/per_call_model.json";
  {
    std::ofstream out(path);
    out << R"({"ops": {"normalize": {"cpu": {"mean_ns": 150000, "cv": 0.1},
                                    "cpu_per_row": {"mean_ns": 2000, "cv": 0}}}})";
  }
  const spec::PipelineSpec spec = Spec(R"(name: "per_element_map"
      budget { cpu_cores: 4 }
      source { name: "ids" range { start: 0 stop: 100000000 } }
      ops { name: "normalize" map { fn { normalize { mean: 127 stddev: 64 } } } }
      ops { name: "batch" batch { batch_size: 64 drop_remainder: true } }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      train_step { step_time: "5ms" device: simulated })");
  auto model = CostModelFor(spec, path);
  ASSERT_TRUE(model.ok()) << model.status().message();
  SimulatedRunOptions options;
  options.sim.duration_s = 5;
  auto run = RunSimulated(spec, *model, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(std::filesystem::path(run->model->run_info().cost_model),
            std::filesystem::absolute(path).lexically_normal());
  auto advice = AdviseOnTrace(*run->model, trace::AnalyzeSteady(*run->model));
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  ASSERT_FALSE(advice->advice.empty()) << "the per-call cost makes the run input-bound";
  EXPECT_EQ(advice->advice.front().kind, "vectorise");
}

TEST(AdvisingTest, NoConfirmedChangeReplacesAKnobSuggestionBySayingSo) {
  engine::AdvisorResult none;
  none.tried = 7;
  none.noise = 0.03;
  trace::Verdict knob;
  knob.grade = "highly input-bound";
  knob.evidence = "decode is busy";
  knob.suggestion = "raise decode's num_parallel_calls to 3";
  knob.suggests_change = true;
  ApplyAdvice(none, knob);
  EXPECT_EQ(knob.suggestion,
            "none of the 7 changes of knobs and order tried in the simulator gains more than 3%");
  trace::Verdict work = knob;
  work.suggestion = "cut its work per element";
  work.suggests_change = false;
  ApplyAdvice(none, work);
  EXPECT_EQ(work.suggestion.find("cut its work per element ("), 0u) << work.suggestion;
}

// The verdict's remedy "cache after it" is not left standing alone where the advisor could
// not try a cache: its reason follows the "none gains".
TEST(AdvisingTest, NoConfirmedChangeSaysWhatWasNotTried) {
  engine::AdvisorResult none;
  none.tried = 7;
  none.noise = 0.03;
  none.not_tried = {"a cache: the data's size is not in the code"};
  trace::Verdict work;
  work.grade = "highly input-bound";
  work.suggestion = "cut its work per element (cache after it) or add cores";
  ApplyAdvice(none, work);
  EXPECT_EQ(work.suggestion,
            "cut its work per element (cache after it) or add cores (none of the 7 changes of "
            "knobs and order tried in the simulator gains more than 3%; not tried: a cache: the "
            "data's size is not in the code)");
}

// official/resnet's ImageNet input (tensorflow/models#5443): batches of 2048 decoded images,
// repeated over epochs of a million records. Its 5 s are millions of the simulator's events;
// tripling the run until an epoch ended (to grade whole epochs, as for mmpose#923) went on to
// an hour of virtual time for each change, and advice took half an hour. Past
// kEpochsMostEvents the run is graded as it is.
TEST(AdvisingTest, EpochsOfMillionsOfEventsAreNotSimulatedWhole) {
  const spec::PipelineSpec spec = Spec(R"(name: "imagenet_epochs"
      budget { cpu_cores: 32 }
      source { name: "records" range { stop: 1281167 } }
      ops { name: "decode" map { num_parallel_calls: 32 fn { cpu_work { duration: "500us" } } } }
      ops { name: "batch" batch { batch_size: 2048 } }
      ops { name: "epochs" repeat { count: 90 } }
      train_step { step_time: "10ms" device: simulated })");
  auto model = CostModelFor(spec, "");
  ASSERT_TRUE(model.ok());
  SimulatedRunOptions options;
  options.sim.duration_s = kAdviceSimulatedSeconds;
  options.steps_only = true;
  const auto run = SimulateSteadyPart(spec, *model, options, kAdviceMostSimulatedSeconds);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_GT(static_cast<double>(run->events) * 3, kEpochsMostEvents) << "the case this is about";
  EXPECT_EQ(run->steady.whole_epochs, 0);
  EXPECT_LE(static_cast<double>(run->end_ns) / 1e9, kAdviceSimulatedSeconds + 1);
}

}  // namespace
}  // namespace pipescope::session

namespace pipescope::session {
namespace {

// tensorflow#44274: eight generators of 25 ms of Python each, read by an interleave of 8, the
// loop taking their 80 elements one at a time in eager Python. The lock is the limit, 80 x
// 25 ms in all, which the maintainers answered. The loop's next() waiting for the lock the
// generators hold is the input's doing, not the loop's own work; and batching for the loop,
// one batch of the 80 elements, gains nothing (written by hand: 40 elements/s either way),
// where the advice counted that batch as 1,024 of the program's steps (12.8x).
constexpr const char* kGeneratorsUnderTheLock = R"(name: "tf_44274"
    budget { cpu_cores: 8 }
    source { name: "range" range { stop: 8 } }
    ops { name: "interleave" interleave {
          per_element { from_generator { records: 10 duration: "25ms" call_overhead: "9us" } }
          cycle_length: 8 num_parallel_calls: 8 } }
    train_step { step_time: "0ms" loop_python: "14us" })";

TEST(AdvisingTest, Tf44274TheLoopWaitingForTheGeneratorsLockIsInputBound) {
  const Advised a = Advise(kGeneratorsUnderTheLock);
  EXPECT_GT(a.analysis.input_wait_fraction, 0.5);
  EXPECT_EQ(a.analysis.verdict.grade, "highly input-bound") << a.analysis.verdict.text;
  EXPECT_NE(a.analysis.verdict.text.find("interpreter lock"), std::string::npos)
      << a.analysis.verdict.text;
  const auto host = a.analysis.device_gaps.by_cause_ns.find(trace::kHostBetweenSteps);
  const int64_t host_ns = host == a.analysis.device_gaps.by_cause_ns.end() ? 0 : host->second;
  EXPECT_LT(host_ns, a.analysis.device_gaps.total_ns / 10);
  EXPECT_EQ(Find(a, "device_bound"), nullptr);
}

TEST(AdvisingTest, Tf44274BatchingAProgramShorterThanABatchGainsNoBatchOfSteps) {
  const Advised a = Advise(kGeneratorsUnderTheLock);
  ASSERT_TRUE(a.result.whole_run);
  for (const engine::Advice& advice : a.result.advice) {
    EXPECT_LT(advice.predicted_gain, 0.5) << advice.text;
  }
}

}  // namespace
}  // namespace pipescope::session

namespace pipescope::session {
namespace {

// tensorflow#14448: a generator of 2 ms a record, then a map that only unpacks a dict. Made
// parallel the map gains what a prefetch gains (its threads run apart from the step, as a
// prefetch's does), nothing of its own: the prefetch is advised, the map's threads are not.
TEST(AdvisingTest, Tf14448AMapOfLittleWorkMadeParallelGainsOnlyWhatAPrefetchDoes) {
  const Advised a = Advise(R"(name: "tf_14448"
      budget { cpu_cores: 8 }
      source { name: "generator" from_generator { records: 100000 duration: "2ms" } }
      ops { name: "map" map { fn { identity {} } call_overhead: "9us" } }
      ops { name: "batch" batch { batch_size: 32 } }
      train_step { step_time: "30ms" device: simulated })");
  EXPECT_NE(Find(a, "prefetch"), nullptr) << a.analysis.verdict.text;
  for (const engine::Advice& advice : a.result.advice) {
    EXPECT_FALSE(advice.kind == "parallelise" && advice.op == "map") << advice.text;
  }
}

}  // namespace
}  // namespace pipescope::session

namespace pipescope::session {
namespace {

// keras#11727: a Sequence's 19 MB batches from 4 worker processes, each unpickled by the main
// process's result-handler thread (4 ms a MB, 76 ms a batch: 13 batches a second, where the
// workers make 27), its __getitem__'s cv2 work holding the lock a tenth of its 150 ms. More
// processes gain nothing (the receipt is the limit); threads need no receipt, and then more
// of them do gain: threads lead, and together with more workers the step's own 50 steps/s
// come near, where neither more processes nor threads alone get there.
TEST(AdvisingTest, Keras11727ThreadsThenMoreOfThem) {
  const Advised a = Advise(R"(name: "keras_11727"
      budget { cpu_cores: 16 }
      source { name: "indices" range { stop: 100000000 } }
      ops { name: "fit" keras_fit { getitem { python { duration: "150ms" gil_share: 0.1 }
                                              output_bytes: 19000000 }
                                    workers: 4 use_multiprocessing: true
                                    worker_startup: "0s" receive_per_mb: "4ms" } }
      train_step { step_time: "20ms" device: simulated })",
                           /*steady=*/true);
  ASSERT_FALSE(a.result.advice.empty()) << a.analysis.verdict.text;
  EXPECT_EQ(a.result.advice[0].kind, "use_threads") << a.result.advice[0].text;
  const engine::AdviceTogether& t = a.result.together;
  EXPECT_NE(std::find(t.settings.begin(), t.settings.end(), "fit.use_multiprocessing=false"),
            t.settings.end());
  EXPECT_TRUE(std::any_of(t.settings.begin(), t.settings.end(), [](const std::string& s) {
    return s.starts_with("fit.workers=");
  })) << t.predicted_steps_per_s;
  EXPECT_GT(t.predicted_gain, 2) << t.predicted_steps_per_s;
}

}  // namespace
}  // namespace pipescope::session

namespace pipescope::session {
namespace {

// An epoch longer than the simulator's window (400,000 lines of 110 us of Python each, about
// 44 s an epoch): the window shows the first epoch only, where a cache gains nothing. Its
// later epochs are simulated on their own and weighed over the program's three: the cache's
// prediction is what the whole run, simulated to its end with the cache, gives (tensorflow#
// 30646's tutorial, cached by hand: 578.7 -> 276.0 s over its 3 epochs).
TEST(AdvisingTest, ACachesGainOverEpochsLongerThanTheWindowIsItsLaterEpochs) {
  const std::string text = R"(name: "long_epochs" budget { cpu_cores: 2 }
      source { name: "lines" range { stop: 400000 } }
      ops { name: "encode" map { fn { python { duration: "100us" } } } }
      ops { name: "batch" batch { batch_size: 64 } }
      ops { name: "epochs" repeat { count: 3 training_loop: true } }
      train_step { step_time: "2ms" device: simulated })";
  const Advised a = Advise(text, /*steady=*/true);
  const engine::Advice* cache = Find(a, "cache");
  ASSERT_NE(cache, nullptr) << a.analysis.verdict.text;
  EXPECT_NE(cache->text.find("over its 3 epochs, the first filling the cache"), std::string::npos)
      << cache->text;
  EXPECT_GT(cache->predicted_gain, 0.3) << cache->text;
  // The whole run with the cache, to its end.
  auto model = CostModelFor(cache->spec, "");
  ASSERT_TRUE(model.ok()) << model.status().message();
  SimulatedRunOptions options;
  options.sim.duration_s = 1000;
  options.steps_only = true;
  auto run = RunSimulated(cache->spec, *model, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const trace::RangeAnalysis whole = trace::Analyze(*run->model);
  EXPECT_EQ(whole.steps, 3 * 6250);
  EXPECT_NEAR(cache->predicted_steps_per_s, whole.steps_per_s, 0.1 * whole.steps_per_s)
      << cache->text;
}

}  // namespace
}  // namespace pipescope::session
