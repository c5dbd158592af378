#include "engine/device/loop_python_step.h"

#include <utility>

#include "engine/work/cpu_work.h"
#include "engine/work/python_work.h"

namespace pipescope::engine {

namespace {
// The Python runs in slices this long, each under the lock: CPython hands the lock on at its
// switch interval (5 ms), so other threads get turns in a long loop, and a stopped run ends
// within a slice.
constexpr int64_t kSliceNs = 1'000'000;
}  // namespace

LoopPythonStep::LoopPythonStep(int64_t loop_python_ns, std::unique_ptr<DeviceStep> step,
                               CancellationToken& cancellation)
    : full_slices_(loop_python_ns / kSliceNs),
      slice_iterations_(CpuWorkIterations(static_cast<double>(kSliceNs))),
      last_iterations_(CpuWorkIterations(static_cast<double>(loop_python_ns % kSliceNs))),
      step_(std::move(step)),
      cancellation_(cancellation) {}

void LoopPythonStep::set_recorder(record::Recorder* recorder) {
  DeviceStep::set_recorder(recorder);
  step_->set_recorder(recorder);
}

Status LoopPythonStep::Submit(const Element& batch) {
  // The loop's waits for the lock are its own (a Python map's calls holding it).
  const LockWaitsRecordedAs waits(recorder_, record::kConsumerOp);
  for (int64_t slice = 0; slice <= full_slices_; ++slice) {
    const uint64_t iterations = slice < full_slices_ ? slice_iterations_ : last_iterations_;
    if (iterations == 0) continue;
    if (cancellation_.cancelled()) return Cancelled("run stopped");
    const std::unique_lock held = TakeInterpreterLock();
    volatile uint64_t sink = RunCpuWorkLoop(iterations, batch.id + static_cast<uint64_t>(slice));
    (void)sink;
  }
  return step_->Submit(batch);
}

}  // namespace pipescope::engine
