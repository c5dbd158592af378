#pragma once
// The core of Pipescope's tuner: given each parallel op's work per training step (measured
// from a trace), the share of that work that uses a CPU (an I/O wait does not), and the
// device's time per step, choose every op's parallelism so that the slowest op is as fast
// as the CPU budget allows.
//
// With W_cpu the CPU work per step of all ops together, no configuration can take less
// than T = max(device step, W_cpu / cores) per step. Each op i then needs
// p_i = ceil(w_i / T) workers to keep up with T (capped at its maximum): this is the
// water level of a water-filling over the ops, computed directly. Ops that wait on I/O get
// workers beyond the cores, since waiting workers use none.

#include <cstdint>
#include <string>
#include <vector>

namespace pipescope::engine {

struct ParallelOp {
  std::string name;
  double work_ns_per_step = 0;  // the op's own time for one training step, all workers
  int64_t max_parallelism = 1 << 16;
  double cpu_fraction = 1;  // share of that time spent computing (0 for an I/O wait)
};

struct CoreAllocation {
  std::vector<int64_t> parallelism;  // per op, in input order
  double cpu_cores_busy = 0;         // cores the ops keep busy at the predicted rate
  double predicted_step_ns = 0;      // max(the water level, the slowest op's time per step)
  std::string limit;                 // "device", "cores" or the op capped at its maximum
};

// `device_step_ns`: the device's busy time per step (0: no device limit). `cores`: the
// CPU budget.
CoreAllocation AllocateCores(const std::vector<ParallelOp>& ops, double device_step_ns, int cores);

}  // namespace pipescope::engine
