#pragma once
// A PyTorch training job's input side as its profiler trace shows it, for what-if
// (engine/tuning/trace_whatif.h), which rebuilds the job from it and simulates changes:
// - per step: its time, the training loop's wait in the DataLoader's __next__ and the
//   device's busy time (the union of its kernels, copies and sets within the step);
// - the steady figures: their means over the steps that are not spikes (a step whose wait is
//   many times the usual one and far out of the waits' spread: an epoch's start, with its
//   workers starting);
// - the DataLoader's settings where the trace shows them: single-process or worker
//   processes (the iterator's class in the __next__ span's name), the batch size (the first
//   dimension of the largest tensor the training loop copies to the device, from the copy's
//   "Input Dims"), the batch's bytes (the largest host-to-device copy of a step) and
//   pin_memory (whether that copy reads pinned or pageable memory).
// Each setting read says where it came from, so what-if can list it as an assumption.
//
// A run recorded here (a spec with a DataLoader, `pipescope-cli run --trace`) is read too,
// so that what-if can be checked against the engine's own runs: a step is the time from
// the previous step's end to its own (the first, with the start-up, is left out), its wait
// the consumer's kInputWait, its device busy the device's step; the settings come from the
// run's spec, which the session layer reads.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct TracedStep {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  int64_t input_wait_ns = 0;   // in __next__
  int64_t device_busy_ns = 0;  // kernels, copies and sets
  bool spike = false;          // left out of the steady figures
};

struct TracedLoader {
  bool multiprocess = false;  // _MultiProcessingDataLoaderIter: num_workers > 0
  int64_t batch_size = 0;     // 0: the trace does not show it
  std::string batch_size_from;
  int64_t batch_bytes = 0;  // 0: no host-to-device copy seen
  std::optional<bool> pin_memory;
  std::string pin_memory_from;
};

struct LoaderJob {
  std::vector<TracedStep> steps;
  TracedLoader loader;
  bool recorded_here = false;  // Pipescope's own recording, not a profiler's trace
  // The share of the loop's own time that is CPU on its thread: PyTorch's loop launches
  // the device's work asynchronously and spends its time on the host (1); the engine's loop
  // waits for a synchronous device step (0).
  double loop_cpu_share = 1;
  std::string spec_text;     // a recording's spec, whose DataLoader gives the settings
  int64_t steady_steps = 0;  // steps that are not spikes
  // Means over the steady steps.
  double step_ns = 0;
  double input_wait_ns = 0;
  double device_busy_ns = 0;
  // The training loop's own time per step: the step less its wait for input (forward,
  // backward and the optimizer on the host, and whatever the device makes it wait).
  double loop_ns() const { return step_ns - input_wait_ns; }
};

// Whether the DataLoader the training loop iterates runs worker processes, from its
// iterator's class in the __next__ spans (_MultiProcessingDataLoaderIter or
// _SingleProcessDataLoaderIter); none when no span names either.
std::optional<bool> DataLoaderRunsWorkers(const Model& model);

// Errors: not a PyTorch profiler trace, no ProfilerStep spans, or no DataLoader __next__
// spans in them, each saying what the trace would need.
engine::Result<LoaderJob> ReadLoaderJob(const Model& model);

// A step is a spike when its wait exceeds this many times the median wait (and a tenth of
// the median step): an epoch's first step waits for its workers to start and fill.
inline constexpr double kSpikeRatio = 3.0;
// ... and lies beyond the waits' far-out fence, the third quartile and this many
// interquartile ranges: two workers delivering in order make every other step wait
// (torch 2.11, num_workers=2: 35, 0.1, 35, 0.1, ... ms), and those waits are the steady
// state, not spikes.
inline constexpr double kSpikeFence = 3.0;

}  // namespace pipescope::trace
