// Calibration's fit of the training loop's wake-up after the device: from a trace whose
// loop resumed a known time after each awaited step, with one and with several steps in
// flight, and no fit where the loop never waited for the device.
#include "app/session/calibration.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>

namespace pipescope::session {
namespace {

using record::EventKind;

constexpr int64_t kUs = 1000;
constexpr int64_t kStepNs = 2000 * kUs;
constexpr uint32_t kConsumerThread = 1;

std::string SpecText(int64_t max_in_flight) {
  return R"(name: "t" source { name: "read" synthetic { records: -1 record_bytes: 8 } }
            train_step { step_time: "2ms" device: simulated max_in_flight: )" +
         std::to_string(max_in_flight) + " }";
}

// A recorded training loop as RunTraining runs it: each request for input takes `input_ns`,
// the step is queued on a device that runs steps back to back, and while `max_in_flight`
// steps are unfinished the loop sleeps until the oldest ends and resumes `late_ns` after.
std::unique_ptr<trace::Model> RecordedLoop(int64_t max_in_flight, int64_t input_ns,
                                           int64_t late_ns) {
  auto model = std::make_unique<trace::Model>();
  model->run_info().spec_text = SpecText(max_in_flight);
  model->AddThread({kConsumerThread, "consumer"});
  int64_t t = 0, device_free = 0;
  std::deque<int64_t> queued;
  for (int i = 0; i < 400; ++i) {
    const int64_t got = t + input_ns;
    model->AddEvent({t, got, static_cast<uint64_t>(i + 1), 0, kConsumerThread, record::kConsumerOp,
                     EventKind::kInputWait, 0});
    const int64_t start = std::max(got, device_free);
    device_free = start + kStepNs;
    model->AddEvent({start, device_free, static_cast<uint64_t>(i + 1), 0, 0, record::kDeviceOp,
                     EventKind::kStep, record::kFlagTimesInNs});
    queued.push_back(device_free);
    while (!queued.empty() && queued.front() <= got) queued.pop_front();
    t = got;
    if (static_cast<int64_t>(queued.size()) >= max_in_flight) {
      t = queued.front() + late_ns;
      queued.pop_front();
    }
  }
  model->ExtendDuration(t);
  return model;
}

// A million steps alternating 1 ms and 3 ms: their mean 2 ms and spread (cv 0.5) fitted
// exactly from figures taken as they come, while the median keeps only an even sample of
// them (an op of tens of millions of calls took hundreds of megabytes to calibrate).
TEST(CalibrationTest, AMillionStepsFitTheirMeanAndSpread) {
  auto model = std::make_unique<trace::Model>();
  model->run_info().spec_text = SpecText(1);
  int64_t t = 0;
  constexpr int kSteps = 1'000'000;
  for (int i = 0; i < kSteps; ++i) {
    const int64_t d = (i % 2 == 0 ? 1000 : 3000) * kUs;
    model->AddEvent({t, t + d, static_cast<uint64_t>(i + 1), 0, 0, record::kDeviceOp,
                     EventKind::kStep, record::kFlagTimesInNs});
    t += d;
  }
  model->ExtendDuration(t);
  auto fitted = Calibrate(*model, "steps.pstrace");
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_NEAR(fitted->model.step.mean_ns, 2000 * kUs, 1);
  EXPECT_NEAR(fitted->model.step.cv, 0.5, 1e-4);
}

TEST(CalibrationTest, FitsHowLateTheLoopResumesAfterASynchronousStep) {
  auto trace = RecordedLoop(1, 30 * kUs, 150 * kUs);
  auto fitted = Calibrate(*trace, "loop.pstrace");
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_NEAR(fitted->model.timer_wake.mean_ns, 150 * kUs, 1 * kUs);
  EXPECT_NEAR(fitted->model.step.mean_ns, kStepNs, 1);
}

TEST(CalibrationTest, FitsTheWakeUpWithSeveralStepsInFlight) {
  // The pipeline is faster than the device: the loop fills the queue and then sleeps on
  // every step.
  auto trace = RecordedLoop(3, 30 * kUs, 80 * kUs);
  auto fitted = Calibrate(*trace, "loop.pstrace");
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_NEAR(fitted->model.timer_wake.mean_ns, 80 * kUs, 1 * kUs);
}

TEST(CalibrationTest, KeepsTheDefaultWakeUpWhenTheLoopNeverWaitedForTheDevice) {
  // Input takes longer than a step: with two in flight the queue never fills.
  auto trace = RecordedLoop(2, 3 * kStepNs / 2, 0);
  auto fitted = Calibrate(*trace, "loop.pstrace");
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_EQ(fitted->model.timer_wake.mean_ns, sim::CostModel{}.timer_wake.mean_ns);
  const auto& notes = fitted->notes;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("never waited for the device") != std::string::npos;
  }));
}

}  // namespace
}  // namespace pipescope::session
