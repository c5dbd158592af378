#include "engine/device/loop_python_step.h"

#include <algorithm>
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
    : loop_python_ns_(loop_python_ns), step_(std::move(step)), cancellation_(cancellation) {}

void LoopPythonStep::set_recorder(record::Recorder* recorder) {
  DeviceStep::set_recorder(recorder);
  step_->set_recorder(recorder);
}

Status LoopPythonStep::Submit(const Element& batch) {
  // The loop's waits for the lock are its own (a Python map's calls holding it).
  const LockWaitsRecordedAs waits(recorder_, record::kConsumerOp);
  for (int64_t done = 0; done < loop_python_ns_; done += kSliceNs) {
    if (cancellation_.cancelled()) return Cancelled("run stopped");
    const std::unique_lock held = TakeInterpreterLock();
    volatile uint64_t sink = RunCpuWorkLoop(
        CpuWorkIterations(static_cast<double>(std::min(kSliceNs, loop_python_ns_ - done))),
        batch.id + static_cast<uint64_t>(done));
    (void)sink;
  }
  return step_->Submit(batch);
}

}  // namespace pipescope::engine
