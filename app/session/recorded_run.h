#pragma once
// A pipeline run with its recording: the pipeline, its device, the recorder, the live
// trace model and (optionally) the .pstrace file being written. What `pipescope-cli run`
// does, and what the GUI's live view will drive.

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "engine/runtime/training_run.h"
#include "instrumentation/trace/format/pstrace.pb.h"
#include "instrumentation/trace/model.h"

namespace pipescope::session {

struct RecordedRunOptions {
  bool record = true;      // false: no recorder at all (measures the bare engine)
  std::string trace_path;  // empty: the trace is kept in memory only
  std::string spec_path;   // stored in the trace header
  // On a GPU, record its kernels, copies and sets with CUPTI (false: measure without).
  bool gpu_activity = true;
  engine::RunOptions run;
  // Data-parallel workers sharing this machine (workers.h): the trace's CPU budget, which
  // the verdict weighs threads against, is this run's share of the pipeline's cores.
  int workers_on_host = 1;
  // Called once the pipeline exists, before it runs (e.g. to let Ctrl-C cancel it), and
  // with nullptr when the run is over.
  std::function<void(engine::Pipeline*)> on_pipeline;
  // A live view: the model to record into (instead of a new one), and the mutex under which
  // it is fed, so that the view can read it (holding the mutex) while the run goes on.
  std::shared_ptr<trace::Model> model;
  std::mutex* model_mutex = nullptr;
};

struct RecordedRunResult {
  engine::Status run_status;            // an error of the pipeline while it ran
  engine::RunSummary summary;           // the run loop's own counters (when it ran well)
  std::shared_ptr<trace::Model> model;  // null when not recording
  engine::Status trace_file_status;     // how writing the trace file went
  uint64_t trace_file_bytes = 0;
  // GPU runs: how many CUPTI activity records were recorded, or why none were.
  uint64_t gpu_activity_records = 0;
  uint64_t gpu_clock_probes = 0;  // CUPTI clock probes that came back (see ClockTracker)
  std::string gpu_activity_note;
  double simulation_wall_s = 0;  // simulated runs: how long simulating took
  uint64_t events = 0;           // simulated runs: events recorded
  // Simulated runs: stopped with no step for twice the planned time (a shuffle buffer still
  // filling, a filter keeping nothing): run_status says so, and the recording is whole.
  bool stalled = false;
};

// A trace header for a run of `spec` on this machine (without the recorder's clock).
pstrace::TraceHeader MakeTraceHeader(const spec::PipelineSpec& spec, const std::string& spec_path,
                                     const std::string& device, int cpu_budget);

// Errors: the pipeline could not be built, or the trace file could not be created. A
// failure while running is not an error of this call: it is in run_status (with the op's
// context), and the recording up to it is in the model.
engine::Result<RecordedRunResult> RunRecorded(const spec::PipelineSpec& spec,
                                              const RecordedRunOptions& options);

}  // namespace pipescope::session
