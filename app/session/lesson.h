#pragma once
// A workshop lesson: a folder of resources/lessons/ with
//   lesson.json      title, concept, goals, hints, how long to run, workers, cost model
//   explanation.md   the short explanation (with a text picture where one helps)
//   start.pbtxt      the pipeline the learner starts from (it fails the goals)
//   solution.pbtxt   a pipeline that meets them
//   model.json       optional: the simulator's costs for the lesson (laid over the spec's)
// Lessons run in the simulator by default, so every laptop sees the same result.

#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"

namespace pipescope::session {

// One condition on a figure read from the lesson's trace(s) (lesson_goals.h lists them).
struct LessonGoal {
  std::string metric;
  std::string op;                           // the op the figure is about, for per-op figures
  std::optional<double> at_least, at_most;  // at least one of them
  std::string text;  // for people: "the device is busy at least 90% of the time"
};

struct Lesson {
  std::string name;  // the folder's name: "01-missing-prefetch"
  std::string folder;
  std::string title;
  std::string teaches;                                // one line: the concept it teaches
  std::string explanation;                            // Markdown
  std::string start_path, solution_path, model_path;  // model_path empty: the spec's costs
  std::vector<LessonGoal> goals;
  std::vector<std::string> hints;
  double duration_s = 10;  // per simulated (or real) run
  int workers = 1;         // > 1: the spec runs once per worker, shard index = worker
};

// The folder lessons are read from: $PIPESCOPE_LESSONS, else resources/lessons beside the
// executable or ../share/pipescope/lessons above it (the first that exists), else the source
// tree's it was built from.
std::string LessonsFolder();

// Every lesson of `folder`, in name order. Errors name the lesson and the field.
engine::Result<std::vector<Lesson>> LoadLessons(const std::string& folder);
engine::Result<Lesson> LoadLesson(const std::string& folder);
// A lesson by name ("03-vectorised-map", or just its number "3" or the part after the number).
engine::Result<Lesson> FindLesson(const std::vector<Lesson>& lessons, const std::string& name);

}  // namespace pipescope::session
