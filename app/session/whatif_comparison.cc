#include "app/session/whatif_comparison.h"

namespace pipescope::session {
namespace {

// The settings as knobs of an op named "DataLoader", so the knob table lists those that
// differ (booleans as 0 and 1).
std::vector<engine::KnobInfo> KnobsOf(const LoaderSettings& s) {
  auto knob = [](const char* name, int64_t value) {
    return engine::KnobInfo{"DataLoader", name, value, 0, 0, false};
  };
  std::vector<engine::KnobInfo> knobs{knob("batch_size", s.batch_size),
                                      knob("num_workers", s.num_workers),
                                      knob("pin_memory", s.pin_memory ? 1 : 0)};
  // Without workers DataLoader takes no prefetch_factor and has nothing to keep alive.
  if (s.num_workers > 0) {
    knobs.push_back(knob("prefetch_factor", s.prefetch_factor));
    knobs.push_back(knob("persistent_workers", s.persistent_workers ? 1 : 0));
  }
  return knobs;
}

SpecMeasurement MeasurementOf(const WhatIfFigures& f, const LoaderSettings& s,
                              std::shared_ptr<trace::Model> model) {
  SpecMeasurement m;
  m.analysis.steps_per_s = f.steps_per_s;
  m.analysis.input_wait_fraction = f.input_wait_fraction;
  m.analysis.device_busy_fraction = f.device_busy_fraction;
  m.knobs = KnobsOf(s);
  m.worker_threads = s.num_workers;
  m.model = std::move(model);
  return m;
}

}  // namespace

Comparison WhatIfComparison(std::shared_ptr<trace::Model> traced, const WhatIfPrediction& p) {
  Comparison c = Compare(MeasurementOf(p.measured, p.traced, std::move(traced)),
                         MeasurementOf(p.predicted, p.changed, p.predicted_trace), true, "traced",
                         "predicted");
  c.b_predicted = true;
  c.tie = false;
  c.verdict = PredictionSentence(p);
  c.notes = p.assumptions;
  return c;
}

}  // namespace pipescope::session
