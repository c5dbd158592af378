#pragma once
// GPU activity as Pipescope records it: what CUPTI reports (kernels, copies, sets, with
// device timestamps), the alignment of the device clock to the host's recording clock, and
// the conversion of one to trace events. Plain data and arithmetic: built and tested on
// every machine, GPU or not; only cupti_collector.cc talks to CUPTI.

#include <cstdint>
#include <vector>

#include "instrumentation/record/event.h"

namespace pipescope::gpu {

enum class ActivityKind : uint8_t { kKernel, kMemcpy, kMemset };

struct DeviceActivity {
  ActivityKind kind = ActivityKind::kKernel;
  uint64_t start_gpu_ns = 0;  // CUPTI timestamps
  uint64_t end_gpu_ns = 0;
  uint64_t bytes = 0;  // copies and sets
  uint32_t correlation = 0;
  uint32_t stream = 0;
};

// One paired reading: the host clock (record::NowNs) just before and just after a reading
// of the GPU timestamp clock.
struct ClockPair {
  int64_t host_before_ns = 0;
  int64_t host_after_ns = 0;
  uint64_t gpu_ns = 0;
};

// host_ns = offset_ns + scale * (gpu_ns - gpu_origin_ns): a line fitted to paired readings.
// CUPTI's timestamps and CLOCK_MONOTONIC run at nearly the same rate; the scale absorbs a
// small drift over long runs, the offset the different origins.
struct ClockAlignment {
  uint64_t gpu_origin_ns = 0;
  double offset_ns = 0;
  double scale = 1;
  int64_t uncertainty_ns = 0;  // half the widest host bracket of the pairs used

  int64_t ToHostNs(uint64_t gpu_ns) const {
    const double d = static_cast<double>(static_cast<int64_t>(gpu_ns - gpu_origin_ns));
    return static_cast<int64_t>(offset_ns + scale * d);
  }
};

// Least-squares fit of host midpoints against GPU readings. Pairs whose host bracket is
// much wider than the tightest one (the thread was preempted mid-reading) are left out.
// One pair gives scale 1; none gives the identity.
ClockAlignment FitClockAlignment(const std::vector<ClockPair>& pairs);

// The trace event of one activity record: a span of the device (op kDeviceOp) in host
// nanoseconds (kFlagTimesInNs), element = correlation id, value = bytes (saturated).
record::Event ToTraceEvent(const DeviceActivity& activity, const ClockAlignment& clock);

struct Interval {
  int64_t start = 0;
  int64_t end = 0;
};
// The device-utilization counter: busy share, per mille, of each `window_ns` window from
// t0 (the last one may be shorter), from the union of the intervals (overlapping kernels on
// several streams count once). `intervals` need not be sorted.
std::vector<uint32_t> UtilizationPerWindow(std::vector<Interval> intervals, int64_t t0, int64_t t1,
                                           int64_t window_ns);

}  // namespace pipescope::gpu
