#include "app/cli/simulate_command.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "app/cli/advice_format.h"
#include "app/cli/printed_order.h"
#include "app/cli/simulated_elements.h"
#include "app/cli/spec_argument.h"
#include "app/cli/summary_format.h"
#include "app/cli/workers_format.h"
#include "app/session/simulated_run.h"
#include "engine/runtime/dataloader_rules.h"
#include "engine/spec/op_kinds.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::cli {

namespace {
constexpr double kLongestDefaultSeconds = 120;  // of virtual time, without --duration

// A cache's first pass fills it and the epochs after it replay it: a run that ends inside
// the first epoch grades the filling alone, where advice graded the epochs after it.
bool Replays(const spec::PipelineSpec& spec) {
  return std::any_of(spec.ops().begin(), spec.ops().end(), [](const spec::Op& op) {
    const engine::OpKindDescription* kind = engine::DescribeOp(op);
    return kind && kind->replays;
  });
}

AdviceCodeRequest AdviceCode(const SimulateCommandOptions& options) {
  return {.py_path = options.spec_path,
          .overrides = options.overrides,
          .pipeline = options.pipeline,
          .out_path = options.advice_code_path,
          .piece = options.advice_piece};
}
}  // namespace

int SimulateCommand(const SimulateCommandOptions& options, std::ostream& out, std::ostream& err) {
  auto spec =
      LoadSpecArgument(options.spec_path, options.overrides, &err, {.pipeline = options.pipeline});
  if (!spec.ok()) {
    err << "pipescope-cli: " << spec.status().message() << "\n";
    return 2;
  }
  auto model = session::CostModelFor(*spec, options.model_path);
  if (!model.ok()) {
    err << "pipescope-cli: " << model.status().message() << "\n";
    return 2;
  }
  session::SimulatedRunOptions run;
  run.trace_path = options.trace_path;
  run.spec_path = options.spec_path;
  run.sim.duration_s = SecondsToRun(options.duration_s, options.steps);
  run.sim.max_steps = options.steps;
  run.sim.seed = options.seed;
  engine::Result<session::RecordedRunResult> result = engine::Internal("not simulated");
  std::optional<session::WorkersRun> workers;
  auto simulate = [&] {
    if (options.workers == 1) {
      result = session::RunSimulated(*spec, *model, run);
      return;
    }
    result = KeepWorkers(session::RunWorkersSimulated(*spec, *model, options.workers,
                                                      [&](int w) {
                                                        session::SimulatedRunOptions o = run;
                                                        o.trace_path = session::WorkerTracePath(
                                                            options.trace_path, w, options.workers);
                                                        return o;
                                                      }),
                         workers);
  };
  simulate();
  // Left to its default length, a run whose first step came late (a large shuffle buffer
  // filling) would be graded on a step or two: it runs again, long enough that what follows
  // the first step is four times as long, at most kLongestDefaultSeconds (worker 0's first
  // step decides for every worker). A run with no step at all ran until the simulator
  // stopped it; the longer run says when the first step comes, and one more may follow.
  // A run of slow steps (a batch a second) is likewise run again until it has enough of them
  // to grade (session::kEnoughStepsToGrade), at most as long. A pipeline with a cache runs
  // until an epoch that replays it is graded, as the advisor's runs do
  // (session::LongerRunForEpochs), so that a cache advice added is seen to gain.
  const double asked_s = run.sim.duration_s;
  double first_s = -1;
  int64_t few_steps = -1;  // the steps of the run that was too short for them
  bool for_replays = false;
  while (result.ok() && options.duration_s <= 0 && options.steps <= 0) {
    const int64_t first_ns = trace::FirstStepNs(*result->model);
    first_s = first_ns >= 0 ? static_cast<double>(first_ns) / 1e9 : -1;
    auto longer = session::LongerRunSeconds(first_ns, run.sim.duration_s, kLongestDefaultSeconds);
    if (!longer && first_ns >= 0 && result->run_status.ok() && !result->summary.end_of_data) {
      longer = session::LongerRunForSteps(result->summary.steps, run.sim.duration_s,
                                          kLongestDefaultSeconds);
      if (longer && few_steps < 0) few_steps = result->summary.steps;
    }
    if (!longer && first_ns >= 0 && result->run_status.ok() && Replays(*spec)) {
      session::SteadyRun steady;
      steady.first_step_ns = first_ns;
      steady.steps = result->summary.steps;
      steady.end_of_data = result->summary.end_of_data;
      steady.events = result->events;
      steady.steady = trace::AnalyzeSteadyPart(*result->model, first_ns);
      longer = session::LongerRunForEpochs(*result->model, steady, run.sim.duration_s);
      for_replays |= longer.has_value();
    }
    if (!longer) break;
    run.sim.duration_s = *longer;
    simulate();
  }
  if (run.sim.duration_s > asked_s) {
    err << std::fixed << std::setprecision(1) << "pipescope-cli: note: ";
    if (for_replays) {
      err << "the cache fills in the first epoch, which " << asked_s << " s does not reach past";
    } else if (few_steps >= 0) {
      err << "only " << few_steps << (few_steps == 1 ? " step in " : " steps in ") << asked_s
          << " s";
    } else if (first_s >= 0) {
      err << "the first step came at " << first_s << " s of start-up";
    } else {
      err << "no step in " << asked_s << " s";
    }
    err << ": simulating " << run.sim.duration_s
        << " s so that the steady part is graded (--duration sets it)\n";
  }
  if (!result.ok()) {
    err << "pipescope-cli: " << result.status().message() << "\n";
    return 1;
  }
  // A stalled simulation still has a trace worth reading: the summary follows the error.
  int exit_code = result->run_status.ok() ? 0 : 1;
  if (!result->run_status.ok()) {
    err << "pipescope-cli: " << result->run_status.message() << "\n";
  }
  if (!result->trace_file_status.ok()) {
    err << "pipescope-cli: the trace file is incomplete: " << result->trace_file_status.message()
        << "\n";
  }
  // What worker 0 ran: its shard.
  const spec::PipelineSpec printed = workers ? workers->specs[0] : *spec;
  if (options.print > 0) {
    for (const std::string& note : OrderNotPrinted(printed)) {
      err << "pipescope-cli: note: " << note << "\n";
    }
    for (const auto& line : SimulatedElementLines(printed, *result->model, options.print))
      out << line << "\n";
  }
  trace::RangeAnalysis analysis = trace::AnalyzeSteady(*result->model);
  std::optional<engine::AdvisorResult> advice;
  // A run stopped for giving the step nothing is advised too: on what would bring a step.
  if (options.advice && (result->run_status.ok() || result->stalled)) {
    sim::CostModel worker_model = *model;  // worker 0's share of the host's cores
    worker_model.cores /= options.workers;
    advice = AdviseForSummary(printed, worker_model, analysis, err);
  } else if (!options.advice) {
    MarkSuggestionUntried(analysis, printed);
  }
  SummaryContext context = ContextFromModel(*result->model, &result->summary);
  context.batch_copies = engine::BatchCopies(printed);
  SetStorage(context, printed, result->summary.storage_busy_fraction,
             result->summary.storage_reads);
  SetEpochs(context, printed, *result->model, analysis);
  const double virtual_s = result->summary.duration_s;
  const double wall_s = std::max(result->simulation_wall_s, 1e-9);
  if (options.json) {
    auto j = SummaryToJson(analysis, context);
    j["simulated"] = {{"cost_model", model->origin},
                      {"seed", options.seed},
                      {"cores", model->cores},
                      {"virtual_s", virtual_s},
                      {"wall_s", result->simulation_wall_s},
                      {"speedup", virtual_s / wall_s}};
    if (!options.trace_path.empty()) j["trace"] = options.trace_path;
    if (advice) PutAdvice(j, *advice);
    if (workers) j.update(WorkersToJson(*workers));
    // The code written as the text output does it, what it says kept for the JSON.
    if (advice && !options.advice_code_path.empty()) {
      std::ostringstream said;
      const int wrote = WriteAdviceIntoCode(AdviceCode(options), *advice, said, err);
      const bool written = wrote == 0;
      if (!written) exit_code = wrote;
      j["advice_code"] = {
          {"path", options.advice_code_path}, {"written", written}, {"said", said.str()}};
    }
    out << j.dump(2) << "\n";
    return exit_code;
  }
  out << SummaryToText(analysis, context);
  if (advice) out << AdviceToText(*advice);
  if (workers) out << WorkersToText(*workers);
  if (advice && !options.advice_code_path.empty()) {
    if (const int wrote = WriteAdviceIntoCode(AdviceCode(options), *advice, out, err); wrote != 0) {
      exit_code = wrote;
    }
  }
  std::ostringstream line;
  line << std::fixed << std::setprecision(2) << "simulated on the " << model->origin
       << " cost model (" << model->cores / options.workers << " cores"
       << (workers ? " per worker" : "") << ", seed " << options.seed << "): " << virtual_s
       << " s in " << std::setprecision(3) << result->simulation_wall_s << " s ("
       << std::setprecision(0) << virtual_s / wall_s << "x real time)\n";
  out << line.str();
  if (!options.trace_path.empty() && result->trace_file_status.ok()) {
    out << "trace saved to " << options.trace_path << " (" << result->trace_file_bytes
        << " bytes)\n";
  }
  return exit_code;
}

}  // namespace pipescope::cli
