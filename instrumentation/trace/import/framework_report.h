#pragma once
// The input-pipeline figures of an imported profiler trace, in the framework's own terms:
// steps, the share of step time spent waiting for input (PyTorch: the DataLoader's
// __next__; TensorFlow: the outermost tf.data iterator call), the share of step time the
// device is busy (the union of kernels, copies and sets within steps), and a verdict that
// names what to change (num_workers; the iterator op that dominates).

#include <string>

#include "instrumentation/trace/device_gaps.h"
#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct FrameworkSummary {
  std::string framework;  // "pytorch", "tensorflow", "chrome"
  int64_t steps = 0;
  double step_time_s = 0;           // all steps together
  double input_wait_fraction = 0;   // of step time
  double device_busy_fraction = 0;  // of step time; 0 without device activity
  bool has_device_activity = false;
  DeviceGapSummary device_gaps;  // total_ns is step time less device busy
  std::string dominant_op;       // TensorFlow: the iterator op with the most own time
  double dominant_op_share = 0;
  bool input_bound = false;
  // The trace records the steps' wait for input (a DataLoader's __next__, tf.data's GetNext):
  // false where it has none, so that a wait of 0% is not measured, not absent.
  bool input_measured = true;
  std::string verdict;

  // The steps a second of step time; 0 without steps.
  double StepsPerSecond() const {
    return step_time_s > 0 ? static_cast<double>(steps) / step_time_s : 0;
  }
};

// Over [t0, t1) (t1 == 0: the whole trace).
FrameworkSummary SummarizeFramework(const Model& model, int64_t t0 = 0, int64_t t1 = 0);

}  // namespace pipescope::trace
