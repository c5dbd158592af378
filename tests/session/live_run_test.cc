// A live run as the GUI drives it: the model grows while the run goes on and can be read
// under the run's lock, knob changes reach the running engine and are recorded with who
// made them, pause stops the consumer, and Stop ends the run with a complete recording.
#include "app/session/live_run.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/spec/spec_loader.h"
#include "tests/engine/test_support.h"

namespace pipescope::session {
namespace {

using namespace std::chrono_literals;

using engine::testing::Spec;

const char* kSlowMap = R"(
  source { name: "src" synthetic { records: -1 record_bytes: 64 } }
  ops { name: "work" map { fn { cpu_work { duration: "200us" } } num_parallel_calls: 1 } }
  ops { name: "pf" prefetch { buffer_size: 2 } }
  train_step { step_time: "100us" device: simulated })";

size_t InputWaits(const LiveRun& run) {
  std::lock_guard<std::mutex> lock(run.model_mutex());
  size_t n = 0;
  for (const auto* t : run.model()->TracksOf(record::EventKind::kInputWait, record::kConsumerOp))
    n += t->size();
  return n;
}

TEST(LiveRunTest, TheModelGrowsWhileTheRunGoesOn) {
  auto run = LiveRun::Start(Spec(kSlowMap), {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  std::this_thread::sleep_for(300ms);
  const size_t early = InputWaits(**run);
  std::this_thread::sleep_for(300ms);
  const size_t later = InputWaits(**run);
  EXPECT_FALSE((*run)->finished());
  EXPECT_GT(early, 0u);
  EXPECT_GT(later, early) << "the view sees new events while the run goes on";
  (*run)->Stop();
  for (int i = 0; i < 500 && !(*run)->finished(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE((*run)->finished());
  EXPECT_TRUE((*run)->outcome().ok());
  EXPECT_GT((*run)->summary().steps, 0);
}

TEST(LiveRunTest, AKnobChangeReachesTheEngineAndIsRecordedAsTheUsers) {
  auto run = LiveRun::Start(Spec(kSlowMap), {});
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE((*run)->SetKnob("work", "num_parallel_calls", 2).ok());
  bool seen = false;
  for (const auto& k : (*run)->Knobs()) {
    if (k.op == "work" && k.knob == "num_parallel_calls") seen = k.value == 2;
  }
  EXPECT_TRUE(seen);
  EXPECT_FALSE((*run)->SetKnob("work", "no_such_knob", 2).ok());
  std::this_thread::sleep_for(100ms);
  (*run)->Stop();
  for (int i = 0; i < 500 && !(*run)->finished(); ++i) std::this_thread::sleep_for(10ms);
  std::lock_guard<std::mutex> lock((*run)->model_mutex());
  const auto& changes = (*run)->model()->knob_changes();
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.back().who, "user");
  EXPECT_EQ(changes.back().to, 2);
  EXPECT_FALSE((*run)->SetKnob("work", "num_parallel_calls", 1).ok()) << "the run is over";
}

TEST(LiveRunTest, PausingStopsTheConsumer) {
  auto run = LiveRun::Start(Spec(kSlowMap), {});
  ASSERT_TRUE(run.ok());
  std::this_thread::sleep_for(200ms);
  (*run)->SetPaused(true);
  std::this_thread::sleep_for(100ms);  // the step in progress ends
  const size_t at_pause = InputWaits(**run);
  std::this_thread::sleep_for(300ms);
  EXPECT_LE(InputWaits(**run), at_pause + 2) << "no steps while paused";
  (*run)->SetPaused(false);
  std::this_thread::sleep_for(300ms);
  EXPECT_GT(InputWaits(**run), at_pause + 2) << "steps again after resuming";
}

TEST(LiveRunTest, ABadSpecIsAnErrorOfStart) {
  auto run =
      LiveRun::Start(Spec(R"(source { list_files { pattern: "/nonexistent/*.tfrecord" } })"), {});
  EXPECT_FALSE(run.ok());
}

TEST(LiveRunTest, ADurationEndsTheRunOnItsOwn) {
  LiveRun::Options options;
  options.duration_ns = 200'000'000;
  auto run = LiveRun::Start(Spec(kSlowMap), options);
  ASSERT_TRUE(run.ok());
  for (int i = 0; i < 500 && !(*run)->finished(); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE((*run)->finished());
  EXPECT_NEAR((*run)->summary().duration_s, 0.2, 0.15);
}

}  // namespace
}  // namespace pipescope::session
