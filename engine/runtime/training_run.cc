#include "engine/runtime/training_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "engine/core/duration.h"
#include "engine/device/gpu_device.h"
#include "engine/device/host_step.h"
#include "engine/device/loop_python_step.h"
#include "engine/device/simulated_device.h"
#include "engine/spec/op_values.h"
#include "instrumentation/record/clock.h"

namespace pipescope::engine {
namespace {

int64_t RowsOf(const Element& e, bool batched) {
  if (!batched) return 1;
  const Tensor& t = e.value.valid() || e.features.empty() ? e.value : e.features[0].value;
  return t.shape().rank() > 0 ? t.shape().dim(0) : 1;
}

// The device that runs the step itself.
Result<std::unique_ptr<DeviceStep>> MakeStepDevice(const spec::TrainStep& train_step,
                                                   int64_t step_ns, int in_flight,
                                                   CancellationToken& cancellation) {
  if (StepOnHost(train_step)) {
    return std::unique_ptr<DeviceStep>(std::make_unique<HostStep>(step_ns, cancellation));
  }
  if (train_step.device() == spec::gpu) {
    auto gpu = MakeGpuDevice(step_ns, in_flight, cancellation);
    if (gpu.ok()) return gpu;
    // Said once per process: a GUI restarting runs, or a tuner running many, would repeat it.
    static std::once_flag said;
    std::call_once(said, [&] {
      std::fprintf(stderr, "pipescope: no GPU step (%s); using the simulated device\n",
                   gpu.status().message().c_str());
    });
  }
  return std::unique_ptr<DeviceStep>(
      std::make_unique<SimulatedDevice>(step_ns, in_flight, cancellation));
}

}  // namespace

Result<std::unique_ptr<DeviceStep>> MakeDevice(const spec::PipelineSpec& spec,
                                               CancellationToken& cancellation) {
  int64_t step_ns = 0;
  if (!spec.train_step().step_time().empty()) {
    ASSIGN_OR_RETURN(step_ns, ParseDurationNs(spec.train_step().step_time()));
  }
  const int in_flight = static_cast<int>(std::max<int64_t>(1, spec.train_step().max_in_flight()));
  ASSIGN_OR_RETURN(std::unique_ptr<DeviceStep> step,
                   MakeStepDevice(spec.train_step(), step_ns, in_flight, cancellation));
  int64_t loop_python_ns = 0;
  if (!spec.train_step().loop_python().empty()) {
    ASSIGN_OR_RETURN(loop_python_ns, ParseDurationNs(spec.train_step().loop_python()));
  }
  if (loop_python_ns <= 0) return step;
  return std::unique_ptr<DeviceStep>(
      std::make_unique<LoopPythonStep>(loop_python_ns, std::move(step), cancellation));
}

Result<RunSummary> RunTraining(Pipeline& pipeline, DeviceStep& device, const RunOptions& options) {
  RunSummary summary;
  summary.device = device.kind();
  const bool batched = pipeline.output_batched();
  record::Recorder* const recorder = pipeline.recorder();
  record::SetThreadName("consumer");
  const int64_t start = record::NowNs();
  int64_t deadline = options.duration_ns > 0 ? start + options.duration_ns : INT64_MAX;
  int64_t input_wait_ns = 0;
  int64_t paused_ns = 0;
  int64_t first_element_ns = -1, paused_before_first_ns = 0;
  Status error;
  while (options.max_steps <= 0 || summary.steps < options.max_steps) {
    if (options.paused && options.paused->load(std::memory_order_acquire)) {
      const int64_t pause_start = record::NowNs();
      while (options.paused->load(std::memory_order_acquire) && !pipeline.cancelled()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      const int64_t pause = record::NowNs() - pause_start;
      paused_ns += pause;
      if (deadline != INT64_MAX) deadline += pause;  // a duration limit counts running time
    }
    if (record::NowNs() >= deadline) break;
    Element element;
    bool end = false;
    const int64_t t0 = record::NowNs();
    const uint64_t t0_ticks = recorder ? record::Ticks() : 0;
    Status s = pipeline.GetNext(element, end);
    if (recorder) {
      recorder->RecordSpan(record::EventKind::kInputWait, record::kConsumerOp, t0_ticks,
                           record::Ticks(), s.ok() && !end ? element.id : 0);
    }
    input_wait_ns += record::NowNs() - t0;
    if (!s.ok()) {
      if (s.code() != StatusCode::kCancelled) error = std::move(s);
      break;
    }
    if (end) {
      summary.end_of_data = true;
      break;
    }
    if (first_element_ns < 0) {
      first_element_ns = record::NowNs();
      summary.startup_input_wait_s = static_cast<double>(input_wait_ns) / 1e9;
      paused_before_first_ns = paused_ns;
    }
    if (options.on_element) options.on_element(element);
    if (!device.Submit(element).ok()) break;
    ++summary.steps;
    summary.elements += RowsOf(element, batched);
  }
  device.Drain();
  const int64_t end_ns = record::NowNs();
  const int64_t wall = std::max<int64_t>(end_ns - start - paused_ns, 1);
  summary.duration_s = static_cast<double>(wall) / 1e9;
  summary.steps_per_s = static_cast<double>(summary.steps) / summary.duration_s;
  summary.elements_per_s = static_cast<double>(summary.elements) / summary.duration_s;
  summary.input_wait_fraction = static_cast<double>(input_wait_ns) / static_cast<double>(wall);
  summary.device_busy_fraction =
      std::min(1.0, static_cast<double>(device.BusyNs(end_ns)) / static_cast<double>(wall));
  summary.knob_changes = pipeline.KnobChanges();
  summary.storage_busy_fraction = pipeline.StorageBusyFraction();
  summary.storage_reads = pipeline.StorageReads();
  if (first_element_ns >= 0) {
    summary.startup_s =
        static_cast<double>(first_element_ns - start - paused_before_first_ns) / 1e9;
  }
  if (!error.ok()) return error;
  return summary;
}

RunSummary AfterFirstStep(const RunSummary& s) {
  RunSummary after = s;
  after.duration_s = std::max(s.duration_s - s.startup_s, 1e-9);
  after.steps_per_s = static_cast<double>(s.steps) / after.duration_s;
  after.elements_per_s = static_cast<double>(s.elements) / after.duration_s;
  after.input_wait_fraction = std::clamp(
      (s.input_wait_fraction * s.duration_s - s.startup_input_wait_s) / after.duration_s, 0.0, 1.0);
  // The device works only after the first element: all its busy time is in this part.
  after.device_busy_fraction =
      std::min(1.0, s.device_busy_fraction * s.duration_s / after.duration_s);
  return after;
}

}  // namespace pipescope::engine
