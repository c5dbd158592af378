#include "app/session/lesson_check.h"

#include "app/session/simulated_run.h"
#include "app/session/workers.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::session {

engine::Result<spec::PipelineSpec> LessonSpec(const Lesson& lesson, bool solution) {
  return engine::LoadSpecFile(solution ? lesson.solution_path : lesson.start_path);
}

std::string FewerCoresThanTheBudget(const spec::PipelineSpec& spec, int machine_cores) {
  const int64_t budget = spec.budget().cpu_cores();
  if (machine_cores <= 0 || budget <= machine_cores) return {};
  return "this machine has " + std::to_string(machine_cores) +
         (machine_cores == 1 ? " core" : " cores") + " and the pipeline is made for " +
         std::to_string(budget) +
         " (its budget): a real run here may miss goals the simulator meets on " +
         std::to_string(budget) + "; without --real the check simulates them";
}

engine::Result<LessonCheck> CheckLesson(const Lesson& lesson, const spec::PipelineSpec& spec,
                                        const LessonCheckOptions& options) {
  LessonCheck check;
  const double duration = options.duration_s > 0 ? options.duration_s : lesson.duration_s;
  for (int w = 0; w < lesson.workers; ++w) {
    ASSIGN_OR_RETURN(const spec::PipelineSpec worker_spec, SpecForWorker(spec, w, lesson.workers));
    auto progress = [&](double done) {
      return !options.progress || options.progress((w + done) / lesson.workers);
    };
    RecordedRunResult run;
    if (options.real) {
      RecordedRunOptions o;
      o.run.duration_ns = static_cast<int64_t>(duration * 1e9);
      ASSIGN_OR_RETURN(run, RunRecorded(worker_spec, o));
      if (!progress(1.0)) return engine::Cancelled("lesson check cancelled");
    } else {
      ASSIGN_OR_RETURN(sim::CostModel model, CostModelFor(worker_spec, lesson.model_path));
      SimulatedRunOptions o;
      o.sim.duration_s = duration;
      o.sim.seed = options.seed + static_cast<uint64_t>(w);
      o.sim.progress = progress;
      ASSIGN_OR_RETURN(run, RunSimulated(worker_spec, model, o));
    }
    if (!run.run_status.ok()) return run.run_status;
    check.traces.push_back(run.model);
  }
  check.passed = true;
  for (const auto& goal : lesson.goals) {
    check.goals.push_back(EvaluateGoal(goal, check.traces));
    check.passed = check.passed && check.goals.back().met;
  }
  return check;
}

}  // namespace pipescope::session
