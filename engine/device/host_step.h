#pragma once
// The training step of a model trained on the host's CPU (train_step.device: cpu): each
// step is real work on the training loop's own thread, `step_time` of CPU time, so it
// competes with the input pipeline's threads and processes for cores as CPU training
// does, and takes longer in wall time when they take its core. Nothing is queued: the loop
// asks for the next batch only when the step is done.

#include <cstdint>

#include "engine/device/device_step.h"
#include "engine/runtime/cancellation.h"

namespace pipescope::engine {

class HostStep : public DeviceStep {
 public:
  HostStep(int64_t step_time_ns, CancellationToken& cancellation);
  std::string kind() const override { return "cpu"; }
  Status Submit(const Element& batch) override;
  void Drain() override {}
  int64_t BusyNs(int64_t until_ns) const override;

 private:
  const int64_t step_time_ns_;
  CancellationToken& cancellation_;
  int64_t busy_ns_ = 0;  // wall time of the steps done, start to end
};

}  // namespace pipescope::engine
