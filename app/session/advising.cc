#include "app/session/advising.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/session/calibration.h"
#include "app/session/simulated_run.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::session {

engine::SimulatedRate SimulatedRateOn(sim::CostModel model, double seconds) {
  return [model = std::move(model), seconds](const spec::PipelineSpec& candidate,
                                             uint64_t seed) -> engine::Result<double> {
    ASSIGN_OR_RETURN(sim::CostModel merged, sim::DefaultCostModel(candidate, model.cores));
    for (const auto& [name, cost] : model.ops) merged.ops[name] = cost;
    merged.oversubscription_cost = model.oversubscription_cost;
    merged.step = model.step;
    merged.handoff_ns = model.handoff_ns;
    merged.timer_wake = model.timer_wake;
    merged.startup_ns = model.startup_ns;
    merged.origin = model.origin;
    SimulatedRunOptions options;
    options.sim.duration_s = seconds;
    options.sim.seed = seed;
    ASSIGN_OR_RETURN(RecordedRunResult run, RunSimulated(candidate, merged, options));
    if (!run.run_status.ok()) return run.run_status;
    const int64_t end = run.model->duration_ns();
    return trace::Analyze(*run.model, end / 4, end).steps_per_s;
  };
}

engine::Result<engine::AdvisorResult> AdviseOn(const spec::PipelineSpec& spec,
                                               const trace::RangeAnalysis& analysis,
                                               const sim::CostModel& model) {
  engine::AdvisorOptions options;
  options.cores = std::max(1, static_cast<int>(std::lround(model.cores)));
  return engine::Advise(spec, analysis, SimulatedRateOn(model, kAdviceSimulatedSeconds), options);
}

engine::Result<engine::AdvisorResult> AdviseOnTrace(const trace::Model& trace,
                                                    const trace::RangeAnalysis& analysis) {
  const trace::RunInfo& info = trace.run_info();
  if (info.spec_text.empty()) {
    return engine::InvalidArgument(
        "the trace has no pipeline spec of Pipescope's own to advise on");
  }
  if (info.simulated) {
    ASSIGN_OR_RETURN(spec::PipelineSpec spec,
                     engine::ParseSpecText(info.spec_text, "trace header"));
    std::error_code ec;
    const std::string model_path =
        std::filesystem::is_regular_file(info.cost_model, ec) ? info.cost_model : "";
    ASSIGN_OR_RETURN(sim::CostModel model, CostModelFor(spec, model_path));
    if (info.machine.cpu_budget > 0) model.cores = info.machine.cpu_budget;
    return AdviseOn(spec, analysis, model);
  }
  ASSIGN_OR_RETURN(Calibration calibration, Calibrate(trace, "the run"));
  return AdviseOn(calibration.spec, analysis, calibration.model);
}

void ApplyAdvice(const engine::AdvisorResult& advice, trace::Verdict& verdict) {
  if (!advice.advice.empty()) {
    trace::SetSuggestion(verdict, advice.advice.front().text);
    return;
  }
  if (advice.tried == 0) return;  // nothing reached the step in the simulation either
  char noise[16];
  std::snprintf(noise, sizeof noise, "%.0f%%", 100 * advice.noise);
  const std::string none = "none of the " + std::to_string(advice.tried) +
                           " changes of knobs and order tried in the simulator gains more than " +
                           noise;
  if (verdict.suggests_change || verdict.suggestion.empty()) {
    trace::SetSuggestion(verdict, none);
  } else {
    trace::SetSuggestion(verdict, verdict.suggestion + " (" + none + ")");
  }
}

}  // namespace pipescope::session
