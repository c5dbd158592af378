// An autotuner tuning a running pipeline: it raises the parallelism of the op that starves
// the step, the knob moves are recorded as the autotuner's, the kept configuration is what
// runs at the end, both algorithms work live, and a periodic tuning stops on request.
#include "app/session/live_tuning.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "tests/engine/test_support.h"

namespace pipescope::session {
namespace {

using namespace std::chrono_literals;

// A step of 8 ms fed by a 3 ms map on one thread, batch 4: needs about two decode workers.
const char* kStarved = R"(
  source { name: "read" synthetic { records: -1 record_bytes: 64 } }
  ops { name: "decode" map { fn { cpu_work { duration: "3ms" } } num_parallel_calls: 1 } }
  ops { name: "batch" batch { batch_size: 4 drop_remainder: true } }
  ops { name: "prefetch" prefetch { buffer_size: 1 } }
  train_step { step_time: "8ms" device: simulated })";

std::unique_ptr<LiveRun> StartStarved() {
  auto run = LiveRun::Start(engine::testing::Spec(kStarved), {});
  EXPECT_TRUE(run.ok()) << run.status().message();
  return std::move(run).value();
}

LiveTuning::Options Quick(const std::string& algorithm) {
  LiveTuning::Options options;
  options.algorithm = algorithm;
  options.settle_s = 0.3;
  options.measure_s = 1.0;
  options.tuner.cores = 2;
  options.tuner.budget_s = 15;
  return options;
}

LiveTuning::Progress WaitUntilFinished(LiveTuning& tuning, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!tuning.progress().finished && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  return tuning.progress();
}

int64_t Knob(const LiveRun& run, const std::string& op, const std::string& knob) {
  for (const auto& k : run.Knobs()) {
    if (k.op == op && k.knob == knob) return k.value;
  }
  return -1;
}

void ExpectTunesTheStarvedMap(const std::string& algorithm) {
  auto run = StartStarved();
  auto tuning = LiveTuning::Start(*run, Quick(algorithm));
  ASSERT_TRUE(tuning.ok()) << tuning.status().message();
  const auto progress = WaitUntilFinished(**tuning, 40s);
  ASSERT_TRUE(progress.finished);
  ASSERT_TRUE(progress.outcome.ok()) << progress.outcome.message();
  ASSERT_TRUE(progress.last.has_value());
  EXPECT_EQ(progress.tunings, 1);
  EXPECT_GE(progress.log.size(), 3u) << "measurements are reported as they happen";
  // What the tuner tried, from the moves the timeline marks: more workers for the map that
  // starves the step.
  bool recorded = false;
  int64_t most_workers_tried = 0;
  {
    std::lock_guard<std::mutex> lock(run->model_mutex());
    for (const auto& k : run->model()->knob_changes()) {
      if (k.who != "autotuner:" + algorithm || k.knob != "num_parallel_calls") continue;
      recorded = true;
      most_workers_tried = std::max(most_workers_tried, k.to);
    }
  }
  EXPECT_GE(most_workers_tried, 2) << "the map that starves the step gets more workers";
  // What it kept: the faster configuration it measured. Under other programs' load the
  // tuned run can measure slower than the given one (a burst during its window); then the
  // spec as given is kept, never the slower one, and that is what runs. How much faster the
  // tuned run goes (83 steps/s as given, up to 125 with two workers on a quiet machine) is a
  // benchmark's figure (scripts/bench-tuners), not this test's.
  // Which configuration wins under load is the measurements' to say: a burst during the
  // two-worker window can leave a buffer change alone measured fastest, decode kept at one
  // worker (seen on a fresh clone under bursty load). What the rule guarantees is that
  // nothing slower than the given spec is kept.
  const int64_t tuned = *engine::ReadIntKnob(progress.last->tuned, "decode", "num_parallel_calls");
  if (progress.last->kept_given) {
    EXPECT_EQ(tuned, 1) << "the tuned run measured slower: the spec as given is kept";
    EXPECT_EQ(progress.last->steps_per_s_after, progress.last->steps_per_s_before)
        << "and its own measurement";
  } else {
    EXPECT_GE(progress.last->steps_per_s_after, progress.last->steps_per_s_before)
        << "a configuration is kept only when it measured faster than the given one";
  }
  EXPECT_EQ(Knob(*run, "decode", "num_parallel_calls"), tuned)
      << "the kept configuration is the one running";
  EXPECT_GT(progress.last->steps_per_s_before, 0);
  EXPECT_GT(progress.last->steps_per_s_after, 0);
  EXPECT_TRUE(recorded) << "the timeline can mark the autotuner's moves";
}

TEST(LiveTuningTest, PipescopeTunesARunningPipeline) { ExpectTunesTheStarvedMap("pipescope"); }

TEST(LiveTuningTest, TfDataTunesARunningPipeline) { ExpectTunesTheStarvedMap("tfdata"); }

TEST(LiveTuningTest, PeriodicTuningWaitsAGrowingPeriodAndStops) {
  auto run = StartStarved();
  auto options = Quick("pipescope");
  options.periodic = true;
  options.first_period_s = 30;
  auto tuning = LiveTuning::Start(*run, options);
  ASSERT_TRUE(tuning.ok());
  const auto deadline = std::chrono::steady_clock::now() + 40s;
  while ((*tuning)->progress().tunings == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  auto progress = (*tuning)->progress();
  EXPECT_EQ(progress.tunings, 1);
  EXPECT_FALSE(progress.finished) << "waiting for the next tuning";
  EXPECT_DOUBLE_EQ(progress.next_tuning_in_s, 30);
  const auto stop = std::chrono::steady_clock::now();
  (*tuning)->Stop();
  progress = WaitUntilFinished(**tuning, 5s);
  EXPECT_TRUE(progress.finished);
  EXPECT_TRUE(progress.outcome.ok()) << "stopping is not an error";
  EXPECT_LT(std::chrono::steady_clock::now() - stop, 2s) << "Stop does not wait out the period";
}

TEST(LiveTuningTest, AnUnknownAlgorithmIsRefused) {
  auto run = StartStarved();
  auto options = Quick("random");
  auto tuning = LiveTuning::Start(*run, options);
  ASSERT_FALSE(tuning.ok());
  EXPECT_NE(tuning.status().message().find("pipescope or tfdata"), std::string::npos);
}

}  // namespace
}  // namespace pipescope::session
