#include "engine/device/simulated_device.h"

#include <algorithm>

#include "instrumentation/record/clock.h"

namespace pipescope::engine {

SimulatedDevice::SimulatedDevice(int64_t step_time_ns, int max_in_flight,
                                 CancellationToken& cancellation)
    : step_time_ns_(step_time_ns),
      max_in_flight_(std::max(1, max_in_flight)),
      cancellation_(cancellation) {}

Status SimulatedDevice::Submit(const Element& batch) {
  int64_t now = record::NowNs();
  // The device runs steps back to back: this one starts when the previous one ends.
  const int64_t start = std::max(now, device_free_at_);
  device_free_at_ = start + step_time_ns_;
  if (recorder_) {
    recorder_->Record(record::Event{
        static_cast<uint64_t>(start), static_cast<uint64_t>(device_free_at_), batch.id, 0,
        record::kDeviceOp, record::EventKind::kStep, record::kFlagTimesInNs});
  }
  queued_.push_back({start, device_free_at_});
  // Retire finished steps; with max_in_flight queued, wait for the oldest to finish.
  while (!queued_.empty()) {
    now = record::NowNs();
    if (queued_.front().end_ns <= now) {
      finished_busy_ns_ += queued_.front().end_ns - queued_.front().start_ns;
      queued_.pop_front();
      continue;
    }
    if (static_cast<int>(queued_.size()) < max_in_flight_) break;
    if (!cancellation_.SleepFor(queued_.front().end_ns - now)) return Cancelled("run stopped");
  }
  return Status::Ok();
}

void SimulatedDevice::Drain() {
  const int64_t now = record::NowNs();
  if (device_free_at_ > now) cancellation_.SleepFor(device_free_at_ - now);
}

int64_t SimulatedDevice::BusyNs(int64_t until_ns) const {
  int64_t busy = finished_busy_ns_;
  for (const auto& s : queued_) {
    busy += std::max<int64_t>(0, std::min(s.end_ns, until_ns) - s.start_ns);
  }
  return busy;
}

}  // namespace pipescope::engine
