// A steady-state measurement: what the buffers hold in bytes at the knobs the run ended
// with, the recording kept for a view, and a Cancel that ends a long measurement at once.
#include "app/session/measurement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "app/session/recorded_run.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/epoch_window.h"
#include "tests/engine/test_support.h"

namespace pipescope::session {
namespace {

using namespace std::chrono_literals;

using engine::testing::Spec;

// A recorded run of epochs is graded over whole ones, as a simulated candidate is: from the
// first epoch to end after the first quarter to the last to end, every epoch's 10 steps.
TEST(MeasurementTest, ARunOfEpochsIsGradedOverWholeOnes) {
  auto m = MeasureSpec(Spec(R"(
    source { name: "read" synthetic { records: 100 record_bytes: 100 } }
    ops { name: "batch" batch { batch_size: 10 } }
    ops { name: "epochs" repeat { training_loop: true } }
    train_step { step_time: "2ms" device: simulated })"),
                       0.6);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const std::vector<int64_t> ends = trace::EpochEndsNs(*m->model);
  EXPECT_GE(m->analysis.whole_epochs, 2) << ends.size() << " epochs ended";
  EXPECT_NE(std::find(ends.begin(), ends.end(), m->steady_from_ns), ends.end());
  EXPECT_GE(m->steady_from_ns, m->model->duration_ns() / 4);
  EXPECT_EQ(m->analysis.steps % 10, 0) << m->analysis.steps;
}

TEST(MeasurementTest, BuffersAreCountedInBytes) {
  // 1000-byte records: the map's two slots and the prefetch's three hold 5000 bytes; the
  // batch of 10 after them is not a buffer; the shuffle's 4 slots hold batches of 10,000.
  auto m = MeasureSpec(Spec(R"(
    source { name: "read" synthetic { records: -1 record_bytes: 1000 } }
    ops { name: "work" map { fn { identity {} } num_parallel_calls: 2 } }
    ops { name: "pf" prefetch { buffer_size: 3 } }
    ops { name: "batch" batch { batch_size: 10 } }
    ops { name: "mix" shuffle { buffer_size: 4 seed: 1 } }
    train_step { step_time: "200us" device: simulated })"),
                       0.6);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->element_bytes.at("work"), 1000);
  EXPECT_EQ(m->element_bytes.at("pf"), 1000);
  EXPECT_EQ(m->element_bytes.at("mix"), 10000);
  EXPECT_EQ(m->element_bytes.count("batch"), 0u) << "a batch holds no buffer";
  EXPECT_EQ(m->buffer_bytes, 2 * 1000 + 3 * 1000 + 4 * 10000);
  ASSERT_NE(m->model, nullptr) << "the recording is kept for the Compare view";
  EXPECT_GT(m->model->duration_ns(), 0);
  EXPECT_EQ(m->steady_from_ns, m->model->duration_ns() / 4);
  const auto t = ForTuner(*m);
  EXPECT_EQ(t.buffer_bytes, m->buffer_bytes);
  EXPECT_EQ(t.steps_per_s, m->analysis.steps_per_s);
}

TEST(MeasurementTest, CancelEndsALongMeasurement) {
  MeasurementCanceller canceller;
  const auto start = std::chrono::steady_clock::now();
  std::thread cancel([&] {
    std::this_thread::sleep_for(300ms);
    canceller.Cancel();
  });
  const auto m = MeasureSpec(Spec(R"(
    source { name: "read" synthetic { records: -1 record_bytes: 10 } }
    ops { name: "pf" prefetch { buffer_size: 2 } }
    train_step { step_time: "1ms" device: simulated })"),
                             30, &canceller);
  cancel.join();
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), engine::StatusCode::kCancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(MeasureSpec(Spec("source { synthetic { records: 1 } }"), 1, &canceller).status().code(),
            engine::StatusCode::kCancelled)
      << "a cancelled canceller ends the next measurement before it starts";
}

// The engine's elements are real: a run whose shuffle buffer would hold more than this
// machine's available memory (a million elements of 1 GB each, after a repeat) is not
// started, and says why and what to do; a buffer of 10 small elements runs.
TEST(RecordedRunTest, AShuffleBufferLargerThanTheMachineIsNotStarted) {
  RecordedRunOptions options;
  options.run.max_steps = 5;
  auto refused =
      RunRecorded(Spec(R"(source { name: "read" synthetic { records: 2 record_bytes: 8 } }
        ops { name: "decode" map { fn { cpu_work { duration: "1us" } output_bytes: 1000000000 } } }
        ops { name: "repeat" repeat {} }
        ops { name: "shuffle" shuffle { buffer_size: 1000000 } }
        train_step { step_time: "0s" device: simulated })"),
                  options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "op 'shuffle': its buffer would hold 1000000 elements of 1.0 GB: 1000.0 TB, "),
            std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("more than this machine's available memory"),
            std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("pipescope-cli simulate"), std::string::npos);
  auto small = RunRecorded(Spec(R"(source { name: "read" synthetic { records: 20 record_bytes: 8 } }
        ops { name: "decode" map { fn { cpu_work { duration: "1us" } output_bytes: 1000 } } }
        ops { name: "shuffle" shuffle { buffer_size: 10 } }
        train_step { step_time: "0s" device: simulated })"),
                           options);
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_TRUE(small->run_status.ok()) << small->run_status.message();
}

}  // namespace
}  // namespace pipescope::session

namespace pipescope::session {
namespace {

// Device gaps on a recorded run with the simulated device: the time no step runs, as the
// test counts it from the step track, whatever the machine's speed; every gap has a cause.
TEST(DeviceGapsTest, ARecordedRunsGapsAreTheTimeWithoutAStep) {
  auto spec =
      engine::LoadSpecFile(std::string(PIPESCOPE_RESOURCES) + "/pipelines/input_bound_demo.pbtxt");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  RecordedRunOptions options;
  options.run.max_steps = 20;
  auto run = RunRecorded(*spec, options);
  ASSERT_TRUE(run.ok() && run->run_status.ok());
  const trace::Model& m = *run->model;
  const engine::testing::StepTrackGaps walked = engine::testing::WalkStepTrack(m);
  ASSERT_GE(walked.steps, 20u);
  const trace::DeviceGapSummary g = trace::Analyze(m).device_gaps;
  EXPECT_TRUE(g.measured);
  EXPECT_EQ(g.count, walked.gaps);
  EXPECT_EQ(g.total_ns, m.duration_ns() - walked.busy_ns);
  EXPECT_EQ(g.longest_ns, walked.longest_ns);
  int64_t by_cause = 0;
  for (const auto& [cause, ns] : g.by_cause_ns) {
    EXPECT_FALSE(cause.empty());
    by_cause += ns;
  }
  EXPECT_EQ(by_cause, g.total_ns);
}

}  // namespace
}  // namespace pipescope::session
