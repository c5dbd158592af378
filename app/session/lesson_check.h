#pragma once
// Runs a lesson's pipeline (the start, the solution, or what the learner made of it) and
// checks the lesson's goals on the trace(s): in the simulator by default (the lesson's cost
// model, fixed cores and seed: the same result on every laptop), for real on request. A
// lesson with several workers runs the pipeline once per worker, each with its shard index.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/session/lesson.h"
#include "app/session/lesson_goals.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::session {

struct LessonCheckOptions {
  bool real = false;      // run the engine on this machine instead of the simulator
  double duration_s = 0;  // 0: the lesson's
  uint64_t seed = 1;
  // The share done, 0..1; returning false cancels (the check then fails with kCancelled).
  std::function<bool(double)> progress;
};

struct LessonCheck {
  std::vector<GoalResult> goals;
  bool passed = false;
  std::vector<std::shared_ptr<trace::Model>> traces;  // one per worker
};

// The lesson's starting spec, or its solution.
engine::Result<spec::PipelineSpec> LessonSpec(const Lesson& lesson, bool solution);

// For a real run on a machine of `machine_cores`: where the spec's budget is more cores than
// that, a sentence saying that its goals, met in the simulator on the budget's cores, may be
// missed here (lesson 1's solution on 2 cores); empty otherwise.
std::string FewerCoresThanTheBudget(const spec::PipelineSpec& spec, int machine_cores);

// Errors: the spec cannot run (a build error with the op's name), or the check was
// cancelled. Goals that fail are not errors: they are in the result.
engine::Result<LessonCheck> CheckLesson(const Lesson& lesson, const spec::PipelineSpec& spec,
                                        const LessonCheckOptions& options);

}  // namespace pipescope::session
