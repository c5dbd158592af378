#pragma once
// The training loop's own Python before each step (train_step.loop_python): real work on
// the loop's thread, `loop_python` of CPU a step, holding the main process's interpreter
// lock (a real mutex, python_work.h), so that a Python map of the pipeline and the loop take
// turns as under CPython's GIL. An eager `for x in dataset` pays tf.data's iterator next()
// there: the op's dispatch and the tensors made for Python, once per element whatever the
// element holds (tensorflow#40502: 10-byte records read slower than pure Python). Wraps the
// device that runs the step. It is not the step: the device is idle through it, and a trace
// shows it as the host between steps.

#include <cstdint>
#include <memory>

#include "engine/device/device_step.h"
#include "engine/runtime/cancellation.h"

namespace pipescope::engine {

class LoopPythonStep : public DeviceStep {
 public:
  LoopPythonStep(int64_t loop_python_ns, std::unique_ptr<DeviceStep> step,
                 CancellationToken& cancellation);
  std::string kind() const override { return step_->kind(); }
  Status Submit(const Element& batch) override;
  void Drain() override { step_->Drain(); }
  int64_t BusyNs(int64_t until_ns) const override { return step_->BusyNs(until_ns); }
  void set_recorder(record::Recorder* recorder) override;

 private:
  // Its work loop's iterations, counted once: whole slices, then the rest.
  const int64_t full_slices_;
  const uint64_t slice_iterations_;
  const uint64_t last_iterations_;
  std::unique_ptr<DeviceStep> step_;
  CancellationToken& cancellation_;
};

}  // namespace pipescope::engine
