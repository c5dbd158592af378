#pragma once
// Keeps the device clock aligned to the host's while a run goes on.
//
// CUPTI hands its records' times already converted to CPU time, but the conversion can
// run away from the host clock: on an H100 a run that left the GPU idle 40% of the time
// saw its kernels drift 0.9 ms per second against CLOCK_MONOTONIC, while the paired
// readings taken at start-up (cuptiGetTimestamp) stayed within a microsecond of it. So the
// readings that matter are of the records themselves: a probe is a tiny copy on a private
// stream whose host bracket (just before it is enqueued, just after it is seen complete)
// is known and whose CUPTI record carries the device's times for it. The alignment is the
// least-squares fit of the newest probes (a sliding window that also follows a drift that
// changes), and the start-up alignment until the probes span enough time to fit a rate.
//
// Plain arithmetic, not thread-safe: the collector guards it.

#include <cstddef>
#include <cstdint>
#include <deque>

#include "instrumentation/gpu/device_activity.h"

namespace pipescope::gpu {

class ClockTracker {
 public:
  static constexpr size_t kWindow = 64;              // probes in the fit
  static constexpr int64_t kMinSpanNs = 50'000'000;  // probes must span this to fit
  explicit ClockTracker(ClockAlignment start_up) : current_(start_up) {}

  // A probe's host bracket, in the order the probes were issued.
  void ProbeIssued(int64_t host_before_ns, int64_t host_after_ns);
  // A probe's record, in the same order (a record may come before or after its bracket).
  void ProbeRecorded(uint64_t gpu_start_ns, uint64_t gpu_end_ns);

  const ClockAlignment& current() const { return current_; }
  size_t pairs() const { return pairs_.size(); }  // in the fit's window
  uint64_t probes() const { return probes_; }     // paired since the start

 private:
  void Pair();

  ClockAlignment current_;
  std::deque<ClockPair> brackets_;  // host sides waiting for their record
  std::deque<uint64_t> records_;    // record midpoints waiting for their bracket
  std::deque<ClockPair> pairs_;     // the newest kWindow complete pairs
  uint64_t probes_ = 0;
};

}  // namespace pipescope::gpu
