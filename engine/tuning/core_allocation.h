#pragma once
// The core of Pipescope's tuner: given each parallel op's work per training step (measured
// from a trace) and the device's time per step, hand out worker threads so that the
// slowest op is as fast as it can be under the CPU budget: water-filling, one core at a
// time to the op that limits the rate, until the device is the limit or the cores are
// spent. Exact for this objective with integer parallelism (each step raises the minimum
// rate as much as any single core can).

#include <cstdint>
#include <string>
#include <vector>

namespace pipescope::engine {

struct ParallelOp {
  std::string name;
  double work_ns_per_step = 0;  // the op's own work for one training step, all workers
  int64_t max_parallelism = 1 << 16;
};

struct CoreAllocation {
  std::vector<int64_t> parallelism;  // per op, in input order
  int64_t cores_used = 0;
  double predicted_step_ns = 0;  // max(device step, slowest op's time per step)
  std::string limit;             // "device", "cores" or the op that limits at the end
};

// `device_step_ns`: the device's busy time per step (0: no device limit). `cores`: the
// budget, at least one per op.
CoreAllocation AllocateCores(const std::vector<ParallelOp>& ops, double device_step_ns, int cores);

}  // namespace pipescope::engine
