#pragma once
// Drives a pipeline into the training step for a duration or a number of steps and
// summarises what happened: the loop of `pipescope-cli run` and of the GUI's live run.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/device/device_step.h"
#include "engine/runtime/pipeline.h"

namespace pipescope::engine {

struct RunOptions {
  int64_t duration_ns = 0;  // 0: no time limit
  int64_t max_steps = 0;    // 0: no step limit (with neither, runs to the end of the data)
  // Called for each element reaching the consumer, before its step (on the run's thread).
  std::function<void(const Element&)> on_element;
  // While it reads true the consumer stops pulling (a paused run: the pipeline fills its
  // buffers and waits). Paused time does not count in the summary's rates.
  const std::atomic<bool>* paused = nullptr;
};

struct RunSummary {
  std::string device;  // "simulated" or "gpu"
  double duration_s = 0;
  int64_t steps = 0;
  int64_t elements = 0;  // rows reaching the consumer (batch rows when batched)
  double steps_per_s = 0;
  double elements_per_s = 0;
  double input_wait_fraction = 0;  // the host thread's wait for input (a GPU may be busy)
  double device_busy_fraction = 0;
  bool end_of_data = false;
  std::vector<TimedKnobChange> knob_changes;
  // Until the first element reached the step (threads and worker processes starting, files
  // opening, buffers filling), and the consumer's wait in it (AfterFirstStep leaves both out).
  double startup_s = 0;
  double startup_input_wait_s = 0;
  // The share of the run the spec's disk (spec::Storage) was busy serving reads; nullopt
  // where the spec has none.
  std::optional<double> storage_busy_fraction;
  int64_t storage_reads = 0;  // the reads it served
};

// The run after its first element reached the step: its figures without the start-up, which
// `run --no-trace` grades as recorded runs grade their trace after the first step.
RunSummary AfterFirstStep(const RunSummary& s);

// Runs until the limits or the end of the data. With a recorder on the pipeline, the
// consumer's waits (kInputWait) are recorded, and the device's steps if it has the recorder
// too; per-stage figures then come from the trace's analysis. An error in the pipeline ends the run
// and is returned (with the op's context); a cancelled run returns what it did so far.
Result<RunSummary> RunTraining(Pipeline& pipeline, DeviceStep& device, const RunOptions& options);

// The device a spec's train_step asks for (the simulated one on machines without a GPU),
// with the loop's own Python before each step where train_step.loop_python sets it.
Result<std::unique_ptr<DeviceStep>> MakeDevice(const spec::PipelineSpec& spec,
                                               CancellationToken& cancellation);

}  // namespace pipescope::engine
