// The GPU training step. Without a GPU (or without CUDA in the build) a spec asking for
// one runs on the simulated device and says so in its summary and its trace. With a GPU,
// steps last about step_time and CUPTI's records of them reach the trace; those checks
// are skipped, with a message, on machines without one.
#include "engine/device/gpu_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "app/session/recorded_run.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::engine {
namespace {

spec::PipelineSpec GpuSpec(const std::string& step_time) {
  auto spec = ParseSpecText(R"(
    source { synthetic { records: -1 record_bytes: 4096 } }
    ops { batch { batch_size: 8 } }
    ops { prefetch { buffer_size: 2 } }
    train_step { step_time: ")" +
                                step_time + R"(" device: gpu max_in_flight: 1 })",
                            "gpu");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return *spec;
}

bool HaveGpu() {
  CancellationToken cancellation;
  return MakeGpuDevice(1'000'000, 1, cancellation).ok();
}

TEST(GpuDeviceTest, WithoutAGpuTheSimulatedDeviceRunsAndTheSummarySaysSo) {
  if (HaveGpu()) GTEST_SKIP() << "this machine has a GPU: the fallback is not taken";
  CancellationToken cancellation;
  auto gpu = MakeGpuDevice(1'000'000, 1, cancellation);
  ASSERT_FALSE(gpu.ok());
  EXPECT_FALSE(gpu.status().message().empty()) << "it says why";
  auto device = MakeDevice(GpuSpec("2ms"), cancellation);
  ASSERT_TRUE(device.ok());
  EXPECT_EQ((*device)->kind(), "simulated");

  session::RecordedRunOptions options;
  options.run.max_steps = 20;
  auto run = session::RunRecorded(GpuSpec("2ms"), options);
  ASSERT_TRUE(run.ok() && run->run_status.ok());
  EXPECT_EQ(run->summary.device, "simulated");
  EXPECT_EQ(run->model->run_info().device, "simulated");
  EXPECT_EQ(run->gpu_activity_records, 0u);
  EXPECT_EQ(trace::Analyze(*run->model).device_busy_source, "steps");
}

TEST(GpuDeviceTest, OnAGpuStepsLastTheirStepTimeAndCuptiRecordsThem) {
  if (!HaveGpu()) GTEST_SKIP() << "no GPU on this machine (or no CUDA in this build)";
  session::RecordedRunOptions options;
  options.run.max_steps = 100;
  auto run = session::RunRecorded(GpuSpec("5ms"), options);
  ASSERT_TRUE(run.ok() && run->run_status.ok()) << run->run_status.message();
  EXPECT_EQ(run->summary.device, "gpu");
  EXPECT_EQ(run->model->run_info().device, "gpu");
  // Synchronous steps of 5 ms: about 200 steps/s, fewer when the pipeline is slower.
  EXPECT_LT(run->summary.steps_per_s, 230);
  EXPECT_GT(run->summary.steps_per_s, 100);
  EXPECT_GE(run->gpu_activity_records, 100u) << run->gpu_activity_note;
  const trace::Model& m = *run->model;
  const auto* kernels = m.FindTrack({record::EventKind::kGpuKernel, record::kDeviceOp, 0});
  ASSERT_NE(kernels, nullptr);
  EXPECT_GE(kernels->size(), 100u);
  const auto* copies = m.FindTrack({record::EventKind::kGpuMemcpy, record::kDeviceOp, 0});
  ASSERT_NE(copies, nullptr);
  // A step's kernel ends with its step span: CUPTI's clock (aligned by the fit) and the
  // CUDA events' (anchored to the host) agree, in the median over the steps, to well
  // under the 5 ms of a step.
  const auto* steps = m.FindTrack({record::EventKind::kStep, record::kDeviceOp, 0});
  ASSERT_NE(steps, nullptr);
  std::vector<double> end_gaps, kernel_durations;
  for (size_t i = 5; i < steps->size(); ++i) {
    const size_t k = kernels->FirstEndingAfter(steps->start(i));
    if (k >= kernels->size()) break;
    end_gaps.push_back(std::abs(static_cast<double>(kernels->end(k) - steps->end(i))));
    kernel_durations.push_back(static_cast<double>(kernels->duration(k)));
  }
  ASSERT_GE(end_gaps.size(), 50u);
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  const double gap_ns = median(end_gaps);
  RecordProperty("median_end_gap_ns", std::to_string(static_cast<int64_t>(gap_ns)));
  EXPECT_LT(gap_ns, 50'000) << "ns between a kernel's end and its step's end";
  EXPECT_NEAR(median(kernel_durations), 5e6, 0.5e6) << "calibrated kernel";
  const auto a = trace::Analyze(m);
  EXPECT_EQ(a.device_busy_source, "cupti");
  EXPECT_GT(a.device_busy_fraction, 0.5);
  EXPECT_NE(m.run_info().clock.gpu_scale, 0) << "the clock alignment is kept in the trace";
}

}  // namespace
}  // namespace pipescope::engine
