#pragma once
// A device that takes `step_time` per step and runs steps one after another, with up to
// `max_in_flight` queued. The host thread sleeps while it waits, as it would for a GPU:
// a simulated step costs no CPU, so it never competes with the input pipeline.

#include <cstdint>
#include <deque>

#include "engine/device/device_step.h"
#include "engine/runtime/cancellation.h"

namespace pipescope::engine {

class SimulatedDevice : public DeviceStep {
 public:
  SimulatedDevice(int64_t step_time_ns, int max_in_flight, CancellationToken& cancellation);
  std::string kind() const override { return "simulated"; }
  Status Submit(const Element& batch) override;
  void Drain() override;
  int64_t BusyNs(int64_t until_ns) const override;

 private:
  struct Step {
    int64_t start_ns;
    int64_t end_ns;
  };
  const int64_t step_time_ns_;
  const int max_in_flight_;
  CancellationToken& cancellation_;
  std::deque<Step> queued_;       // submitted steps, possibly not yet finished
  int64_t finished_busy_ns_ = 0;  // steps no longer in queued_
  int64_t device_free_at_ = 0;
};

}  // namespace pipescope::engine
