#include "app/cli/run_command.h"

#include <array>
#include <csignal>
#include <iostream>
#include <optional>

#include "app/cli/advice_format.h"
#include "app/cli/printed_order.h"
#include "app/cli/spec_argument.h"
#include "app/cli/summary_format.h"
#include "app/cli/workers_format.h"
#include "app/session/recorded_run.h"
#include "engine/core/element.h"
#include "engine/runtime/dataloader_rules.h"

namespace pipescope::cli {
namespace {

// Ctrl-C stops the run gracefully (every worker's): the summary of what ran is still printed.
std::array<std::atomic<engine::Pipeline*>, session::kMaxWorkers> g_running{};
void OnInterrupt(int) {
  for (auto& running : g_running) {
    if (auto* p = running.load()) p->Cancel();
  }
}

// Without a recording, the summary has only what the run loop counted itself.
trace::RangeAnalysis AnalysisFromCounters(const engine::RunSummary& s) {
  // The run after its first step, as a recorded run is graded (trace::AnalyzeSteady).
  const engine::RunSummary after = engine::AfterFirstStep(s);
  trace::RangeAnalysis a;
  a.startup_ns = static_cast<int64_t>(s.startup_s * 1e9);
  a.t0 = a.startup_ns;
  a.t1 = static_cast<int64_t>(s.duration_s * 1e9);
  a.duration_s = after.duration_s;
  a.steps = s.steps;
  a.steps_per_s = after.steps_per_s;
  a.elements = s.elements;
  a.elements_per_s = after.elements_per_s;
  a.input_wait_fraction = after.input_wait_fraction;
  a.device_busy_fraction = after.device_busy_fraction;
  a.device_busy_source = "steps";  // the device's own count of its step time
  return a;
}

}  // namespace

int RunCommand(const RunCommandOptions& options, std::ostream& out, std::ostream& err) {
  auto loaded =
      LoadSpecArgument(options.spec_path, options.overrides, &err, {.pipeline = options.pipeline});
  if (!loaded.ok()) {
    err << "pipescope-cli: " << loaded.status().message() << "\n";
    return 2;
  }
  const spec::PipelineSpec spec = std::move(loaded).value();

  session::RecordedRunOptions run;
  run.record = options.record;
  run.gpu_activity = options.gpu_activity;
  run.trace_path = options.trace_path;
  run.spec_path = options.spec_path;
  run.run.max_steps = options.steps;
  const double duration = SecondsToRun(options.duration_s, options.steps);
  run.run.duration_ns = static_cast<int64_t>(duration * 1e9);
  int64_t printed = 0;
  if (options.print > 0) {
    for (const std::string& note : OrderNotPrinted(spec)) {
      err << "pipescope-cli: note: " << note << "\n";
    }
    run.run.on_element = [&](const engine::Element& e) {
      if (printed++ < options.print) out << engine::ElementToJson(e) << "\n";
    };
  }
  run.on_pipeline = [](engine::Pipeline* p) { g_running[0].store(p); };

  auto previous = std::signal(SIGINT, OnInterrupt);
  engine::Result<session::RecordedRunResult> result = engine::Internal("not run");
  std::optional<session::WorkersRun> workers;
  if (options.workers == 1) {
    result = session::RunRecorded(spec, run);
  } else {
    // Worker 0 prints its elements and names the summary; each worker writes its own trace.
    result = KeepWorkers(session::RunWorkersRecorded(spec, options.workers,
                                                     [&](int w) {
                                                       session::RecordedRunOptions o = run;
                                                       o.trace_path = session::WorkerTracePath(
                                                           options.trace_path, w, options.workers);
                                                       if (w > 0) o.run.on_element = nullptr;
                                                       o.on_pipeline = [w](engine::Pipeline* p) {
                                                         g_running[static_cast<size_t>(w)].store(p);
                                                       };
                                                       return o;
                                                     }),
                         workers);
  }
  std::signal(SIGINT, previous);
  if (!result.ok()) {
    err << "pipescope-cli: " << result.status().message() << "\n";
    return 2;
  }
  if (!result->run_status.ok()) {
    err << "pipescope-cli: the pipeline failed: " << result->run_status.message() << "\n";
    return 1;
  }
  if (!result->gpu_activity_note.empty()) {
    err << "pipescope-cli: GPU activity is not recorded: " << result->gpu_activity_note << "\n";
  }
  // Probes come every 200 ms; a run of seconds without one kept CUPTI's own time
  // conversion, which was seen to drift by up to 0.9 ms per second.
  if (result->gpu_activity_records > 0 && result->gpu_clock_probes == 0 &&
      result->summary.duration_s > 2) {
    err << "pipescope-cli: note: GPU activity times were not re-aligned during the run (no "
           "clock probe came back); kernels may drift against the host's lanes\n";
  }
  if (!result->trace_file_status.ok()) {
    err << "pipescope-cli: the trace file is incomplete: " << result->trace_file_status.message()
        << "\n";
  }

  SummaryContext context;
  trace::RangeAnalysis analysis;
  std::optional<engine::AdvisorResult> advice;
  if (result->model) {
    context = ContextFromModel(*result->model, &result->summary);
    context.batch_copies = engine::BatchCopies(spec);
    analysis = trace::AnalyzeSteady(*result->model);
    SetEpochs(context, spec, *result->model, analysis);
    if (options.advice) {
      advice = AdviseForSummary(*result->model, analysis, err);
    } else {
      MarkSuggestionUntried(analysis, *result->model);
    }
  } else {
    context.device = result->summary.device;
    context.end_of_data = result->summary.end_of_data;
    context.recorded = false;
    analysis = AnalysisFromCounters(result->summary);
  }
  SetStorage(context, spec, result->summary.storage_busy_fraction, result->summary.storage_reads);
  if (options.json) {
    auto j = SummaryToJson(analysis, context);
    if (!options.trace_path.empty()) j["trace"] = options.trace_path;
    if (advice) PutAdvice(j, *advice);
    if (workers) j.update(WorkersToJson(*workers));
    out << j.dump(2) << "\n";
  } else {
    out << SummaryToText(analysis, context);
    if (advice) out << AdviceToText(*advice);
    if (workers) out << WorkersToText(*workers);
    if (!options.trace_path.empty() && result->trace_file_status.ok()) {
      out << "trace saved to " << session::WorkerTracePath(options.trace_path, 0, options.workers)
          << " (" << result->trace_file_bytes << " bytes)"
          << (workers ? ", and one per worker beside it" : "") << "\n";
    }
  }
  return 0;
}

}  // namespace pipescope::cli
