#include "engine/tuning/core_allocation.h"

#include <algorithm>

namespace pipescope::engine {

CoreAllocation AllocateCores(const std::vector<ParallelOp>& ops, double device_step_ns, int cores) {
  CoreAllocation a;
  a.parallelism.assign(ops.size(), 1);
  a.cores_used = static_cast<int64_t>(ops.size());
  auto time_of = [&](size_t i) {
    return ops[i].work_ns_per_step / static_cast<double>(a.parallelism[i]);
  };
  for (;;) {
    size_t slowest = 0;
    for (size_t i = 1; i < ops.size(); ++i) {
      if (time_of(i) > time_of(slowest)) slowest = i;
    }
    const double op_time = ops.empty() ? 0 : time_of(slowest);
    a.predicted_step_ns = std::max(device_step_ns, op_time);
    if (ops.empty() || op_time <= device_step_ns) {
      a.limit = "device";
      break;
    }
    if (a.cores_used >= cores) {
      a.limit = "cores";
      break;
    }
    if (a.parallelism[slowest] >= ops[slowest].max_parallelism) {
      a.limit = ops[slowest].name;
      break;
    }
    ++a.parallelism[slowest];
    ++a.cores_used;
  }
  return a;
}

}  // namespace pipescope::engine
