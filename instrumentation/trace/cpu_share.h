#pragma once
// How much CPU each op's threads got while they worked for it. The recorder samples every
// thread's CPU time (kCpuTime); set against the time the thread spent in an op's work
// (asynchronous ops: their workers' kWork spans; synchronous ones: their calls' self time)
// it shows when workers wanted a core and did not get one: other processes on the machine,
// or more threads than cores. A thread that works for several ops shares its CPU time out
// in proportion to the time it spent in each.

#include <cstdint>
#include <map>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct OpCpu {
  double cpu_ns = 0;   // CPU time its threads used for it
  double work_ns = 0;  // time its threads spent in its work (wall clock)
  int threads = 0;     // threads that worked for it and were sampled
  // The CPU its work got per unit of wall time: 1 when every working moment had a core.
  double share() const { return work_ns > 0 ? cpu_ns / work_ns : -1; }
};

// By stage id, over [t0, t1); ops whose threads were never sampled are absent.
std::map<uint16_t, OpCpu> CpuOfOps(const Model& model, int64_t t0, int64_t t1);

// The CPU time the training loop's thread (the one that waits for input) used over
// [t0, t1), in ns; -1 where it was not sampled.
double ConsumerCpuNs(const Model& model, int64_t t0, int64_t t1);

}  // namespace pipescope::trace
