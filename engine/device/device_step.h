#pragma once
// The consumer's training step: one per element. Implementations: the simulated device
// (here), the CUDA device (GPU builds) and the host's CPU (host_step.h).

#include <cstdint>
#include <string>

#include "engine/core/element.h"
#include "engine/core/status.h"
#include "instrumentation/record/recorder.h"

namespace pipescope::engine {

class DeviceStep {
 public:
  virtual ~DeviceStep() = default;
  virtual std::string kind() const = 0;  // "simulated", "gpu" or "cpu"
  // Submits one step for `batch`. Blocks while `max_in_flight` steps are queued, like a
  // framework that waits on the device before it can enqueue more work.
  virtual Status Submit(const Element& batch) = 0;
  // Waits for every submitted step to finish.
  virtual void Drain() = 0;
  // Device time spent in steps that have finished by `until_ns` (record::NowNs clock).
  virtual int64_t BusyNs(int64_t until_ns) const = 0;

  // Where device steps are recorded (kStep spans of record::kDeviceOp); null: nowhere.
  virtual void set_recorder(record::Recorder* recorder) { recorder_ = recorder; }

 protected:
  record::Recorder* recorder_ = nullptr;
};

}  // namespace pipescope::engine
