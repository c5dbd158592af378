#include "engine/tuning/core_allocation.h"

#include <algorithm>
#include <cmath>

namespace pipescope::engine {

CoreAllocation AllocateCores(const std::vector<ParallelOp>& ops, double device_step_ns, int cores) {
  CoreAllocation a;
  double cpu_work = 0;
  for (const ParallelOp& op : ops) cpu_work += op.work_ns_per_step * op.cpu_fraction;
  const double cpu_bound = cpu_work / std::max(1, cores);
  const double level = std::max(device_step_ns, cpu_bound);
  a.limit = device_step_ns >= cpu_bound ? "device" : "cores";
  a.predicted_step_ns = level;
  for (const ParallelOp& op : ops) {
    // The workers that keep this op at the level (a hair of slack against rounding).
    int64_t p = level > 0 ? static_cast<int64_t>(std::ceil(op.work_ns_per_step / level - 1e-9)) : 1;
    p = std::clamp<int64_t>(p, 1, std::max<int64_t>(op.max_parallelism, 1));
    a.parallelism.push_back(p);
    const double op_time = op.work_ns_per_step / static_cast<double>(p);
    if (op_time > a.predicted_step_ns) {
      a.predicted_step_ns = op_time;
      a.limit = op.name;
    }
  }
  a.cpu_cores_busy = a.predicted_step_ns > 0 ? cpu_work / a.predicted_step_ns : 0;
  return a;
}

}  // namespace pipescope::engine
