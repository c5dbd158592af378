#pragma once
// One steady-state measurement of a spec on this machine: a recorded run of `seconds`,
// analysed without its first quarter (buffers filling, workers starting), with the knob
// values it ran with. What the autotuners' verification runs and `compare` use.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/runtime/pipeline.h"
#include "engine/tuning/tuner.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/model.h"

namespace pipescope::session {

struct SpecMeasurement {
  trace::RangeAnalysis analysis;        // of the steady part
  std::vector<engine::KnobInfo> knobs;  // as the run ended (AUTOTUNE knobs: the chosen value)
  int64_t worker_threads = 0;           // worker threads of parallel maps, interleaves, loaders
  double cpu_cores_busy = 0;      // CPU seconds per second its ops' threads used (steady part)
  int64_t buffered_elements = 0;  // capacity of the buffer_size knobs (prefetch, shuffle)
  int64_t buffer_bytes = 0;       // what the buffers hold at those knobs (BufferMemoryBytes)
  std::map<std::string, int64_t> element_bytes;  // a recent output element, per buffered op
  std::shared_ptr<trace::Model> model;           // the whole recording
  int64_t steady_from_ns = 0;  // where the analysed part starts (trace::AnalyzeSteadyPart)
};

// Lets another thread (a Cancel button) end the measurements made with it, one at a time.
class MeasurementCanceller {
 public:
  void Cancel();
  bool cancelled() const;
  // The pipeline being measured (nullptr: none); cancelled at once if Cancel came first.
  void Attach(engine::Pipeline* pipeline);

 private:
  mutable std::mutex mu_;
  engine::Pipeline* pipeline_ = nullptr;
  bool cancelled_ = false;
};

// Errors: the spec cannot run, it failed while running, or the canceller ended it
// (kCancelled).
engine::Result<SpecMeasurement> MeasureSpec(const spec::PipelineSpec& spec, double seconds,
                                            MeasurementCanceller* canceller = nullptr);

// The tuners' view of a measurement.
engine::TunerMeasurement ForTuner(const SpecMeasurement& m);

// The tuners' measurer on this machine: each candidate run and recorded for `seconds`
// (MeasureSpec); `measured` hears each one's steps/s, for people watching.
engine::Measurer RecordedMeasurer(double seconds, MeasurementCanceller* canceller = nullptr,
                                  std::function<void(double steps_per_s)> measured = {});

// This machine's available memory, in bytes (0 where it cannot be read).
double AvailableMemoryBytes();
// Half of it: the default RAM budget for buffers (tf.data's).
double DefaultRamBudgetBytes();

}  // namespace pipescope::session
