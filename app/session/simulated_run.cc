#include "app/session/simulated_run.h"

#include <atomic>
#include <cmath>
#include <memory>
#include <thread>

#include "app/session/model_feed.h"
#include "engine/sim/cost_model_json.h"
#include "engine/spec/op_values.h"
#include "engine/tuning/tuner.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/epoch_window.h"
#include "instrumentation/trace/format/trace_writer.h"

namespace pipescope::session {

engine::Result<sim::CostModel> CostModelFor(const spec::PipelineSpec& spec,
                                            const std::string& model_path) {
  const double cores = spec.budget().cpu_cores() > 0
                           ? static_cast<double>(spec.budget().cpu_cores())
                           : static_cast<double>(std::max(1u, std::thread::hardware_concurrency()));
  ASSIGN_OR_RETURN(sim::CostModel model, sim::DefaultCostModel(spec, cores));
  if (model_path.empty()) return model;
  return sim::LoadCostModelFile(model_path, std::move(model));
}

engine::Result<RecordedRunResult> RunSimulated(const spec::PipelineSpec& spec,
                                               const sim::CostModel& cost_model,
                                               const SimulatedRunOptions& options) {
  RecordedRunResult result;
  // A step trained on the CPU is the host's own work on either clock: "cpu", as HostStep says.
  const bool on_cpu = engine::StepOnHost(spec.train_step());
  pstrace::TraceHeader header =
      MakeTraceHeader(spec, options.spec_path, on_cpu ? "cpu" : "simulated",
                      static_cast<int>(std::lround(cost_model.cores)));
  header.set_simulated(true);
  // The file, where there is one: what advice on this trace loads again (AdviseOnTrace).
  header.set_cost_model(cost_model.file.empty() ? cost_model.origin : cost_model.file);
  header.mutable_clock()->set_source("simulated");

  ModelFeed model_feed(options.model, options.model_mutex, header, options.steps_only);
  result.model = model_feed.model();
  std::unique_ptr<pstrace::TraceWriter> writer;
  sim::SimulationOptions sim = options.sim;
  sim.sinks.push_back(&model_feed);
  if (!options.trace_path.empty()) {
    ASSIGN_OR_RETURN(writer, pstrace::TraceWriter::Create(options.trace_path, header));
    sim.sinks.push_back(writer.get());
  }
  ASSIGN_OR_RETURN(sim::SimulationResult r, sim::Simulate(spec, cost_model, sim));
  result.summary = r.summary;
  result.simulation_wall_s = r.wall_s;
  result.events = r.events;
  if (r.cancelled) result.run_status = engine::Cancelled("simulation cancelled");
  if (r.stalled) {
    result.stalled = true;
    result.run_status = engine::Internal(
        "the training step still waited for an element at " +
        std::to_string(static_cast<int64_t>(r.summary.duration_s)) +
        " s of virtual time (twice the run asked for, and 10 s more), and the simulation was "
        "stopped there (the verdict says what the pipeline's ops did meanwhile)");
  }
  if (writer) {
    result.trace_file_status = writer->status();
    result.trace_file_bytes = writer->bytes_written();
  }
  return result;
}

std::optional<double> LongerRunSeconds(int64_t first_step_ns, double seconds, double most_seconds) {
  const double first_s = static_cast<double>(first_step_ns) / 1e9;
  if (first_step_ns >= 0 && first_s <= seconds / 5) return std::nullopt;
  const double longer = std::min(most_seconds, first_step_ns < 0 ? most_seconds : 5 * first_s);
  if (longer <= seconds) return std::nullopt;
  return longer;
}

std::optional<double> LongerRunForSteps(int64_t steps, double seconds, double most_seconds) {
  if (steps >= kEnoughStepsToGrade || seconds >= most_seconds) return std::nullopt;
  // Half again the steps asked for, as the first of them came after a start-up.
  const double factor = 1.5 * static_cast<double>(kEnoughStepsToGrade) /
                        static_cast<double>(std::max<int64_t>(1, steps));
  return std::min(most_seconds, seconds * factor);
}

std::optional<double> LongerRunForEpochs(const trace::Model& model, const SteadyRun& run,
                                         double seconds) {
  if (run.end_of_data || run.first_step_ns < 0 || run.steady.whole_epochs > 0 ||
      !trace::HasEpochs(model)) {
    return std::nullopt;
  }
  const std::vector<int64_t> ends = trace::EpochEndsNs(model);
  const double longer =
      ends.empty() ? 3 * seconds : std::max(3 * static_cast<double>(ends.front()) / 1e9, seconds);
  const double scale = longer / std::max(seconds, 1e-9);
  const double steps_then = static_cast<double>(run.steps) * scale;
  const double events_then = static_cast<double>(run.events) * scale;
  if (longer <= seconds || longer > kEpochsMostSimulatedSeconds ||
      steps_then > static_cast<double>(kEpochsMostSteps) || events_then > kEpochsMostEvents) {
    return std::nullopt;
  }
  return longer;
}

engine::Result<SteadyRun> SimulateSteadyPart(const spec::PipelineSpec& spec,
                                             const sim::CostModel& model,
                                             SimulatedRunOptions options, double most_seconds,
                                             int64_t min_steps, bool lengthen_for_epochs) {
  SteadyRun out;
  for (;;) {
    ASSIGN_OR_RETURN(RecordedRunResult run, RunSimulated(spec, model, options));
    const double seconds = options.sim.duration_s;
    out.seconds = seconds;
    out.first_step_ns = trace::FirstStepNs(*run.model);
    out.end_ns = run.model->duration_ns();
    out.steps = run.summary.steps;
    out.end_of_data = run.summary.end_of_data;
    out.events = run.events;
    if (const auto longer = LongerRunSeconds(out.first_step_ns, seconds, most_seconds)) {
      options.sim.duration_s = *longer;
      continue;
    }
    // A run stopped for giving the step nothing has a rate: none (a buffer still filling).
    if (!run.run_status.ok() && !run.stalled) return run.run_status;
    const int64_t end = run.model->duration_ns();
    const int64_t first = std::max<int64_t>(0, out.first_step_ns);
    out.steady = trace::AnalyzeSteadyPart(*run.model, first);
    // Steps that come in bursts (an epoch's batches handed out of a shuffle buffer that then
    // fills again, tensorflow#47687): a window that misses the burst misses the rate, so the
    // whole part after the first step is graded where the window holds next to none of it.
    constexpr int64_t kFewSteps = 3;
    if (out.first_step_ns >= 0 && out.steady.steps < kFewSteps) {
      trace::RangeAnalysis whole = trace::Analyze(*run.model, first, end);
      if (whole.steps >= 4 * kFewSteps) out.steady = std::move(whole);
    }
    if (out.first_step_ns < 0) out.steady.steps_per_s = 0;
    if (const auto longer =
            lengthen_for_epochs ? LongerRunForEpochs(*run.model, out, seconds) : std::nullopt) {
      options.sim.duration_s = *longer;
      continue;
    }
    const int64_t steps = out.steady.steps;
    if (steps > 0 && steps < min_steps && seconds < most_seconds) {
      options.sim.duration_s = std::min(
          most_seconds, seconds * static_cast<double>(min_steps) / static_cast<double>(steps));
      continue;
    }
    return out;
  }
}

double InputAloneRate(const SteadyRun& run) {
  const bool burst = run.end_of_data && run.first_step_ns > 0 &&
                     run.end_ns - run.first_step_ns < run.first_step_ns;
  if (!burst) return std::max(0.0, run.steady.steps_per_s);
  return static_cast<double>(run.steps) / (static_cast<double>(run.end_ns) / 1e9);
}

bool EndsEarly(const SteadyRun& run) {
  return run.end_of_data && run.first_step_ns >= 0 && run.end_ns > 0 && run.steps > 0;
}

double WholeRunRate(const SteadyRun& run) {
  return static_cast<double>(run.steps) / (static_cast<double>(run.end_ns) / 1e9);
}

engine::Measurer SimulatedMeasurer(std::string model_path, double seconds) {
  // Each measurement draws its costs with the next seed, as each real run meets other
  // noise: a repeat of the same seed would be the same run, and would narrow the interval
  // of the rate without telling anything new. The sequence is the same on every tuning.
  auto runs = std::make_shared<std::atomic<uint64_t>>(0);
  return [model_path = std::move(model_path), seconds,
          runs](const spec::PipelineSpec& candidate) -> engine::Result<engine::TunerMeasurement> {
    ASSIGN_OR_RETURN(sim::CostModel model, CostModelFor(candidate, model_path));
    SimulatedRunOptions options;
    options.sim.duration_s = seconds;
    options.sim.seed = ++*runs;
    ASSIGN_OR_RETURN(SteadyRun run,
                     SimulateSteadyPart(candidate, model, options,
                                        std::max(seconds, kMeasuredMostSeconds), kMeasuredSteps));
    return engine::MeasurementOf(std::move(run.steady));
  };
}

}  // namespace pipescope::session
