#pragma once
// Device gaps: where the accelerator sits idle, and why. The device is busy where a kernel,
// copy or set runs on any stream (their union), or, in a trace without device activity,
// where a training step runs. A gap is the rest of the range, measured the way
// device_busy_fraction is so that the two agree: over the whole range for Pipescope's own
// traces, within the training steps for imported ones.
//
// Each gap has a cause: the input pipeline op that made the consumer wait (gap attribution)
// in Pipescope's traces; in imported ones the DataLoader or tf.data iterator the host was
// waiting in, else the host work running at the time ("the host was running aten::...") or
// synchronisation, else "the host was launching work".

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "instrumentation/trace/intervals.h"
#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct DeviceGapSummary {
  bool measured = false;  // the trace says when the device was busy
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t longest_ns = 0;
  std::map<std::string, int64_t> by_cause_ns;  // sums to total_ns
};

// The device's idle intervals in [t0, t1), sorted; empty when nothing says when the device
// was busy.
std::vector<Interval> DeviceGaps(const Model& model, int64_t t0, int64_t t1);

// The gap that holds time `t`, or nullopt where the device was busy (or, in an imported
// trace, outside the steps). Costs a binary search per device track, for clicks.
std::optional<Interval> DeviceGapAt(const Model& model, int64_t t);

// Why the device was idle in [start, end): one phrase for people, also the key of
// by_cause_ns.
std::string DeviceGapCause(const Model& model, int64_t start, int64_t end);

// The consumer's input waits during which the device was idle as well, sorted and
// disjoint. On an asynchronous device (one whose own work the trace records: CUPTI, an
// imported GPU trace) a wait while queued work keeps the device busy costs no device time;
// only these waits do. Without device work in the trace: every wait.
std::vector<Interval> WaitsWhileDeviceIdle(const Model& model);

// `caused`: AttributeWaiting's answer for the range where the caller has it already.
DeviceGapSummary SummarizeDeviceGaps(const Model& model, int64_t t0, int64_t t1,
                                     const std::map<int, int64_t>* caused = nullptr);

// The host between steps of a Pipescope trace, when the consumer was not waiting for input.
inline constexpr const char* kHostBetweenSteps = "the host between steps (the loop's own work)";

}  // namespace pipescope::trace
