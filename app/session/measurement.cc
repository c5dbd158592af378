#include "app/session/measurement.h"

#include <unistd.h>

#include "app/session/recorded_run.h"
#include "engine/spec/op_kinds.h"

namespace pipescope::session {

void MeasurementCanceller::Cancel() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  if (pipeline_) pipeline_->Cancel();
}

bool MeasurementCanceller::cancelled() const {
  std::lock_guard lock(mu_);
  return cancelled_;
}

void MeasurementCanceller::Attach(engine::Pipeline* pipeline) {
  std::lock_guard lock(mu_);
  pipeline_ = pipeline;
  if (pipeline_ && cancelled_) pipeline_->Cancel();
}

engine::Result<SpecMeasurement> MeasureSpec(const spec::PipelineSpec& spec, double seconds,
                                            MeasurementCanceller* canceller) {
  const engine::Status cancelled(engine::StatusCode::kCancelled, "measurement cancelled");
  if (canceller && canceller->cancelled()) return cancelled;
  SpecMeasurement m;
  RecordedRunOptions run;
  run.run.duration_ns = static_cast<int64_t>(seconds * 1e9);
  engine::Pipeline* running = nullptr;
  run.on_pipeline = [&](engine::Pipeline* p) {
    if (canceller) canceller->Attach(p);
    if (p) {
      running = p;
      return;
    }
    if (!running) return;
    // The run is over and its pipeline not yet destroyed: what it ended with.
    m.knobs = running->Knobs();
    m.buffer_bytes = running->BufferMemoryBytes();
    m.element_bytes = running->ElementBytes();
  };
  ASSIGN_OR_RETURN(auto r, RunRecorded(spec, run));
  if (canceller && canceller->cancelled()) return cancelled;
  if (!r.run_status.ok()) return r.run_status;
  m.analysis = trace::AnalyzeSteadyPart(*r.model, 0);
  m.steady_from_ns = m.analysis.t0;
  m.model = std::move(r.model);
  for (const auto& s : m.analysis.stages) m.cpu_cores_busy += s.cpu_cores;
  for (const auto& k : m.knobs) {
    if (engine::IsRunsAheadKnob(k.knob)) m.worker_threads += std::max<int64_t>(k.value, 1);
    if (k.knob == "buffer_size") m.buffered_elements += std::max<int64_t>(k.value, 0);
  }
  return m;
}

engine::TunerMeasurement ForTuner(const SpecMeasurement& m) {
  engine::TunerMeasurement t = engine::MeasurementOf(m.analysis);
  t.buffer_bytes = m.buffer_bytes;
  t.element_bytes = m.element_bytes;
  return t;
}

engine::Measurer RecordedMeasurer(double seconds, MeasurementCanceller* canceller,
                                  std::function<void(double steps_per_s)> measured) {
  return [seconds, canceller, measured = std::move(measured)](
             const spec::PipelineSpec& candidate) -> engine::Result<engine::TunerMeasurement> {
    ASSIGN_OR_RETURN(SpecMeasurement m, MeasureSpec(candidate, seconds, canceller));
    if (measured) measured(m.analysis.steps_per_s);
    return ForTuner(m);
  };
}

double AvailableMemoryBytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

double DefaultRamBudgetBytes() { return 0.5 * AvailableMemoryBytes(); }

}  // namespace pipescope::session
