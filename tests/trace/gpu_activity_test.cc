// GPU activity without a GPU: CUPTI-like records built by hand become device events in
// host time; the device clock's alignment is fitted from paired readings; the device's
// busy share is the union of its activity (overlapping streams count once), and the
// analysis takes it from there when a trace has GPU activity.
#include <gtest/gtest.h>

#include <random>

#include "instrumentation/gpu/device_activity.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::gpu {
namespace {

TEST(ClockAlignmentTest, AFitOfPairedReadingsMapsTheGpuClockToTheHostClock) {
  // The GPU clock starts 5 s earlier than the host's and runs 20 ppm fast.
  const double scale = 1.0 / 1.00002;
  std::mt19937 rng(3);
  std::vector<ClockPair> pairs;
  for (int i = 0; i < 32; ++i) {
    const int64_t host = 1'000'000'000 + i * 1'000'000;  // a reading every ms
    const auto gpu = static_cast<uint64_t>((host + 5'000'000'000) / scale);
    const int64_t bracket = 200 + static_cast<int64_t>(rng() % 100);  // 0.2-0.3 us
    pairs.push_back({host - bracket / 2, host + bracket / 2, gpu});
  }
  pairs[7].host_after_ns += 50'000;  // preempted mid-reading: left out of the fit
  const ClockAlignment a = FitClockAlignment(pairs);
  EXPECT_NEAR(a.scale, scale, 1e-7);
  for (int i : {0, 15, 31}) {
    const int64_t host = 1'000'000'000 + i * 1'000'000;
    EXPECT_NEAR(static_cast<double>(a.ToHostNs(pairs[static_cast<size_t>(i)].gpu_ns)),
                static_cast<double>(host), 150.0);
  }
  EXPECT_LT(a.uncertainty_ns, 1'000) << "the disturbed pair does not widen the uncertainty";
  // An hour later the drift is still followed.
  const int64_t later = 1'000'000'000 + 3'600'000'000'000;
  EXPECT_NEAR(
      static_cast<double>(a.ToHostNs(static_cast<uint64_t>((later + 5'000'000'000) / scale))),
      static_cast<double>(later), 2'000.0);
}

TEST(ClockAlignmentTest, OnePairGivesAnOffsetAndNoneTheIdentity) {
  const ClockAlignment one = FitClockAlignment({{100, 300, 10'000}});
  EXPECT_EQ(one.scale, 1);
  EXPECT_EQ(one.ToHostNs(10'000), 200);
  EXPECT_EQ(one.ToHostNs(11'000), 1'200);
  EXPECT_EQ(FitClockAlignment({}).ToHostNs(42), 42);
}

TEST(DeviceActivityTest, RecordsBecomeDeviceSpansInHostTime) {
  ClockAlignment clock;
  clock.gpu_origin_ns = 1'000;
  clock.offset_ns = 50'000;  // host = 50 us + (gpu - 1 us)
  const record::Event k = ToTraceEvent({ActivityKind::kKernel, 2'000, 7'000, 0, 42, 7}, clock);
  EXPECT_EQ(k.kind, record::EventKind::kGpuKernel);
  EXPECT_EQ(k.op, record::kDeviceOp);
  EXPECT_EQ(k.start, 51'000u);
  EXPECT_EQ(k.end, 56'000u);
  EXPECT_EQ(k.element, 42u) << "the CUDA correlation id";
  EXPECT_TRUE(k.flags & record::kFlagTimesInNs);
  const record::Event m =
      ToTraceEvent({ActivityKind::kMemcpy, 1'000, 1'500, uint64_t{1} << 40, 3, 7}, clock);
  EXPECT_EQ(m.kind, record::EventKind::kGpuMemcpy);
  EXPECT_EQ(m.value, UINT32_MAX) << "bytes saturate";
  const record::Event s = ToTraceEvent({ActivityKind::kMemset, 3'000, 2'000, 64, 4, 7}, clock);
  EXPECT_EQ(s.kind, record::EventKind::kGpuMemset);
  EXPECT_EQ(s.start, s.end) << "an end before the start is clamped, never negative";
}

TEST(DeviceActivityTest, BusyTimeIsTheUnionOfOverlappingActivity) {
  // Two streams overlap in [20, 30); a copy inside a kernel adds nothing.
  const std::vector<Interval> v = {{10, 30}, {20, 40}, {25, 26}, {60, 70}};
  // One window over the whole range: its share is the union's time (per mille of it).
  EXPECT_EQ(UtilizationPerWindow(v, 0, 100, 100), (std::vector<uint32_t>{(30 + 10) * 10}));
  EXPECT_EQ(UtilizationPerWindow(v, 35, 65, 30), (std::vector<uint32_t>{(5 + 5) * 1000 / 30}))
      << "clipped to the range";
  EXPECT_EQ(UtilizationPerWindow({}, 0, 100, 100), (std::vector<uint32_t>{0}));
  EXPECT_EQ(UtilizationPerWindow(v, 0, 80, 20), (std::vector<uint32_t>{500, 1000, 0, 500}));
  EXPECT_EQ(UtilizationPerWindow(v, 0, 70, 40), (std::vector<uint32_t>{750, 333}))
      << "the last window is shorter";
}

TEST(DeviceActivityTest, TheAnalysisTakesTheDeviceBusyShareFromGpuActivity) {
  trace::Model model;
  record::TraceBatch batch;
  // Steps say the device was busy 80% of [0, 1 ms); its kernels say 50%, on two streams
  // that overlap.
  batch.events.push_back({0, 800'000, 1, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0});
  batch.events.push_back(
      {0, 300'000, 1, 0, 0, record::kDeviceOp, record::EventKind::kGpuKernel, 0});
  batch.events.push_back(
      {200'000, 400'000, 2, 0, 0, record::kDeviceOp, record::EventKind::kGpuKernel, 0});
  batch.events.push_back(
      {450'000, 550'000, 3, 4096, 0, record::kDeviceOp, record::EventKind::kGpuMemcpy, 0});
  batch.time_ns = 1'000'000;
  model.Consume(batch, true);
  const trace::RangeAnalysis a = trace::Analyze(model);
  EXPECT_EQ(a.device_busy_source, "cupti");
  EXPECT_NEAR(a.device_busy_fraction, 0.5, 1e-9);
  EXPECT_EQ(a.steps, 1);
}

TEST(DeviceActivityTest, InputWaitIsTheWaitDuringWhichNoStepRuns) {
  // An asynchronous GPU step: the host thread queues step 1 at 0 and waits for the next
  // batch from 0.1 ms to 0.9 ms while the step runs until 0.6 ms, then queues step 2 at 0.9
  // ms and waits again from 0.95 ms while that step runs to the end. Only [0.6, 0.9) ms of
  // the waiting left the device idle.
  trace::Model model;
  record::TraceBatch batch;
  auto wait = [](int64_t a, int64_t b) {
    return record::TraceEvent{a, b, 0, 0, 0, record::kConsumerOp, record::EventKind::kInputWait, 0};
  };
  auto step = [](int64_t a, int64_t b, uint64_t id) {
    return record::TraceEvent{a, b, id, 0, 0, record::kDeviceOp, record::EventKind::kStep, 0};
  };
  batch.events = {wait(100'000, 900'000), step(0, 600'000, 1), wait(950'000, 1'000'000),
                  step(900'000, 1'000'000, 2)};
  batch.time_ns = 1'000'000;
  model.Consume(batch, true);
  EXPECT_NEAR(trace::Analyze(model).input_wait_fraction, 0.3, 1e-9);
  EXPECT_NEAR(trace::Analyze(model, 500'000, 800'000).input_wait_fraction, 2.0 / 3, 1e-9)
      << "clipped to the range";
}

}  // namespace
}  // namespace pipescope::gpu
