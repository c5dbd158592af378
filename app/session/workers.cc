#include "app/session/workers.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "engine/spec/spec_overrides.h"
#include "engine/tuning/move_rules.h"
#include "engine/work/python_work.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::session {
namespace {

WorkerFigures FiguresOf(const RecordedRunResult& r) {
  if (r.model) {
    const trace::RangeAnalysis a = trace::AnalyzeSteady(*r.model);
    return {a.steps, a.steps_per_s, a.elements_per_s, a.input_wait_fraction,
            a.device_busy_fraction};
  }
  const engine::RunSummary s = engine::AfterFirstStep(r.summary);
  return {s.steps, s.steps_per_s, s.elements_per_s, s.input_wait_fraction, s.device_busy_fraction};
}

void Total(WorkersRun& run) {
  double slowest = -1;
  run.figures.clear();
  for (const RecordedRunResult& r : run.workers) run.figures.push_back(FiguresOf(r));
  for (size_t w = 0; w < run.workers.size(); ++w) {
    const double rate = run.figures[w].steps_per_s;
    run.total_steps_per_s += rate;
    if (slowest < 0 || rate < slowest) {
      slowest = rate;
      run.slowest = static_cast<int>(w);
    }
  }
  run.synchronous_steps_per_s = static_cast<double>(run.workers.size()) * std::max(slowest, 0.0);
}

engine::Status CheckWorkers(int workers) {
  if (workers < 1 || workers > kMaxWorkers) {
    return engine::InvalidArgument("--workers must be between 1 and " +
                                   std::to_string(kMaxWorkers) + ", got " +
                                   std::to_string(workers));
  }
  return engine::Status::Ok();
}

}  // namespace

engine::Result<spec::PipelineSpec> SpecForWorker(const spec::PipelineSpec& spec, int worker,
                                                 int workers) {
  spec::PipelineSpec out = spec;
  for (const spec::Op& op : spec.ops()) {
    if (!engine::Splits(op)) continue;
    const int64_t shards = engine::ReadIntKnob(spec, op.name(), "num_shards").value_or(0);
    if (worker >= shards) {
      return engine::InvalidArgument("worker " + std::to_string(worker) + " of " +
                                     std::to_string(workers) + " has no shard of its own: '" +
                                     op.name() + "' splits its input into num_shards " +
                                     std::to_string(shards) + " (run at most " +
                                     std::to_string(shards) + " workers, or raise num_shards)");
    }
    RETURN_IF_ERROR(engine::ApplyOverride(out, op.name() + ".index=" + std::to_string(worker)));
  }
  return out;
}

RecordedRunResult FirstWorkerResult(const WorkersRun& run) {
  RecordedRunResult first = run.workers.at(0);
  for (const RecordedRunResult& r : run.workers) {
    if (!r.run_status.ok()) {
      first.run_status = r.run_status;
      break;
    }
  }
  return first;
}

std::string WorkerTracePath(const std::string& path, int worker, int workers) {
  if (path.empty() || workers <= 1) return path;
  const std::filesystem::path p(path);
  return (p.parent_path() /
          (p.stem().string() + "-worker" + std::to_string(worker) + p.extension().string()))
      .string();
}

engine::Result<WorkersRun> RunWorkersRecorded(
    const spec::PipelineSpec& spec, int workers,
    const std::function<RecordedRunOptions(int worker)>& worker_options) {
  RETURN_IF_ERROR(CheckWorkers(workers));
  std::vector<spec::PipelineSpec> specs;
  specs.reserve(static_cast<size_t>(workers));
  for (int w = 0; w < workers; ++w) {
    ASSIGN_OR_RETURN(spec::PipelineSpec s, SpecForWorker(spec, w, workers));
    specs.push_back(std::move(s));
  }
  std::vector<engine::Result<RecordedRunResult>> results(
      static_cast<size_t>(workers), engine::Internal("the worker did not run"));
  // Each worker a process of its own: its pipeline's threads (started from its thread)
  // hold its interpreter lock, not the others'.
  std::vector<engine::PythonProcess> processes(static_cast<size_t>(workers));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(workers));
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      const auto i = static_cast<size_t>(w);
      const engine::PythonProcessScope process(processes[i]);
      RecordedRunOptions options = worker_options(w);
      options.workers_on_host = workers;
      results[i] = RunRecorded(specs[i], options);
    });
  }
  for (auto& t : threads) t.join();
  WorkersRun run;
  run.specs = std::move(specs);
  for (auto& r : results) {
    if (!r.ok()) return r.status();
    run.workers.push_back(std::move(r).value());
  }
  Total(run);
  return run;
}

engine::Result<WorkersRun> RunWorkersSimulated(
    const spec::PipelineSpec& spec, const sim::CostModel& model, int workers,
    const std::function<SimulatedRunOptions(int worker)>& worker_options) {
  RETURN_IF_ERROR(CheckWorkers(workers));
  sim::CostModel shared = model;
  shared.cores = model.cores / workers;  // one host's cores, shared evenly
  WorkersRun run;
  for (int w = 0; w < workers; ++w) {
    ASSIGN_OR_RETURN(spec::PipelineSpec s, SpecForWorker(spec, w, workers));
    SimulatedRunOptions options = worker_options(w);
    options.sim.seed += static_cast<uint64_t>(w);
    ASSIGN_OR_RETURN(RecordedRunResult r, RunSimulated(s, shared, options));
    run.workers.push_back(std::move(r));
    run.specs.push_back(std::move(s));
  }
  Total(run);
  return run;
}

}  // namespace pipescope::session
