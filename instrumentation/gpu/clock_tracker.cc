#include "instrumentation/gpu/clock_tracker.h"

#include <vector>

namespace pipescope::gpu {

void ClockTracker::ProbeIssued(int64_t host_before_ns, int64_t host_after_ns) {
  brackets_.push_back({host_before_ns, host_after_ns, 0});
  Pair();
}

void ClockTracker::ProbeRecorded(uint64_t gpu_start_ns, uint64_t gpu_end_ns) {
  records_.push_back(gpu_start_ns + (gpu_end_ns - gpu_start_ns) / 2);
  Pair();
}

void ClockTracker::Pair() {
  bool added = false;
  while (!brackets_.empty() && !records_.empty()) {
    ClockPair p = brackets_.front();
    p.gpu_ns = records_.front();
    brackets_.pop_front();
    records_.pop_front();
    pairs_.push_back(p);
    ++probes_;
    if (pairs_.size() > kWindow) pairs_.pop_front();
    added = true;
  }
  if (!added || pairs_.size() < 2) return;
  if (static_cast<int64_t>(pairs_.back().gpu_ns - pairs_.front().gpu_ns) < kMinSpanNs) return;
  current_ = FitClockAlignment(std::vector<ClockPair>(pairs_.begin(), pairs_.end()));
}

}  // namespace pipescope::gpu
