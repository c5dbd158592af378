#include "app/session/measurement.h"

#include "app/session/recorded_run.h"

namespace pipescope::session {

engine::Result<SpecMeasurement> MeasureSpec(const spec::PipelineSpec& spec, double seconds) {
  SpecMeasurement m;
  RecordedRunOptions run;
  run.run.duration_ns = static_cast<int64_t>(seconds * 1e9);
  run.on_pipeline = [&m](engine::Pipeline* p) {
    if (p) m.knobs = p->Knobs();
  };
  ASSIGN_OR_RETURN(auto r, RunRecorded(spec, run));
  if (!r.run_status.ok()) return r.run_status;
  const int64_t end = r.model->duration_ns();
  m.analysis = trace::Analyze(*r.model, end / 4, end);
  for (const auto& k : m.knobs) {
    if (k.knob == "num_parallel_calls") m.cores_used += std::max<int64_t>(k.value, 1);
    if (k.knob == "buffer_size") m.buffered_elements += std::max<int64_t>(k.value, 0);
  }
  return m;
}

}  // namespace pipescope::session
