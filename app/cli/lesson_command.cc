#include "app/cli/lesson_command.h"

#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "app/cli/advice_format.h"
#include "app/session/lesson_check.h"
#include "app/session/simulated_run.h"
#include "app/session/workers.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::cli {
namespace {

using nlohmann::json;

std::string Bound(const session::LessonGoal& g) {
  std::ostringstream s;
  s << std::setprecision(3);
  if (g.at_least) s << ">= " << *g.at_least;
  if (g.at_least && g.at_most) s << " and ";
  if (g.at_most) s << "<= " << *g.at_most;
  return s.str();
}

json GoalJson(const session::GoalResult& r) {
  json j{{"metric", r.goal.metric},
         {"text", r.goal.text},
         {"met", r.met},
         {"measured", r.measured},
         {"bound", Bound(r.goal)}};
  if (!r.goal.op.empty()) j["op"] = r.goal.op;
  if (r.measured) j["value"] = r.value;
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

int List(const std::vector<session::Lesson>& lessons, bool as_json, std::ostream& out) {
  if (as_json) {
    json list = json::array();
    for (const auto& l : lessons)
      list.push_back({{"name", l.name}, {"title", l.title}, {"concept", l.teaches}});
    out << list.dump(2) << "\n";
    return 0;
  }
  for (const auto& l : lessons) {
    out << std::left << std::setw(34) << l.name << l.title << "\n";
  }
  return 0;
}

int Show(const session::Lesson& l, bool as_json, std::ostream& out) {
  if (as_json) {
    json goals = json::array();
    for (const auto& g : l.goals)
      goals.push_back({{"metric", g.metric}, {"op", g.op}, {"text", g.text}, {"bound", Bound(g)}});
    out << json{{"name", l.name},        {"title", l.title},
                {"concept", l.teaches},  {"explanation", l.explanation},
                {"goals", goals},        {"hints", l.hints},
                {"start", l.start_path}, {"solution", l.solution_path},
                {"workers", l.workers},  {"duration_s", l.duration_s},
                {"model", l.model_path}}
               .dump(2)
        << "\n";
    return 0;
  }
  out << l.title << "\n\n" << l.explanation << "\nGoals:\n";
  for (const auto& g : l.goals) out << "  - " << g.text << "\n";
  if (!l.hints.empty()) {
    out << "\nHints (one at a time, for whoever is stuck):\n";
    for (size_t i = 0; i < l.hints.size(); ++i) out << "  " << i + 1 << ". " << l.hints[i] << "\n";
  }
  out << "\nStart from: " << l.start_path << "\nSolution: " << l.solution_path << "\n";
  // A lesson whose costs are its own: simulate its specs with them, or the verdict differs.
  if (!l.model_path.empty()) {
    out << "Cost model: " << l.model_path << " (simulate the specs with --model " << l.model_path
        << "; lesson check uses it)\n";
  }
  out << "Check with: pipescope-cli lesson check " << l.name << " --spec YOUR_SPEC.pbtxt\n";
  return 0;
}

// What the advisor confirms for a spec that misses its goals, as hints: each change tried in
// the simulator on the run (worker 0's), those that gain. None where the advisor cannot
// work on the run or finds nothing to change.
std::vector<engine::Advice> AdvisorHints(const session::Lesson& lesson,
                                         const spec::PipelineSpec& spec,
                                         const session::LessonCheck& check, bool real) {
  std::vector<engine::Advice> hints;
  if (check.traces.empty() || !check.traces[0]) return hints;
  const trace::Model& run = *check.traces[0];
  trace::RangeAnalysis analysis = trace::Analyze(run);
  std::ostringstream quiet;  // the lesson's own words come first; notes stay out of them
  std::optional<engine::AdvisorResult> advice;
  if (real) {
    advice = AdviseForSummary(run, analysis, quiet);
  } else {
    auto worker = session::SpecForWorker(spec, 0, lesson.workers);
    if (!worker.ok()) return hints;
    auto model = session::CostModelFor(*worker, lesson.model_path);
    if (!model.ok()) return hints;
    advice = AdviseForSummary(*worker, *model, analysis, quiet);
  }
  if (!advice) return hints;
  for (const engine::Advice& a : advice->advice) {
    if (!a.change.empty()) hints.push_back(a);
  }
  return hints;
}

}  // namespace

int LessonCommand(const LessonCommandOptions& options, std::ostream& out, std::ostream& err) {
  auto lessons = session::LoadLessons(session::LessonsFolder());
  if (!lessons.ok()) {
    err << "pipescope-cli: " << lessons.status().message() << "\n";
    return 2;
  }
  if (options.action == "list") return List(*lessons, options.json, out);
  if (options.name.empty()) {
    err << "pipescope-cli: lesson " << options.action << " needs a lesson name (see lesson list)\n";
    return 2;
  }
  auto lesson = session::FindLesson(*lessons, options.name);
  if (!lesson.ok()) {
    err << "pipescope-cli: " << lesson.status().message() << "\n";
    return 2;
  }
  if (options.action == "show") return Show(*lesson, options.json, out);
  if (options.action != "check") {
    err << "pipescope-cli: lesson: unknown action '" << options.action
        << "' (list, show or check)\n";
    return 2;
  }
  auto spec = !options.spec_path.empty() ? engine::LoadSpecFile(options.spec_path)
                                         : session::LessonSpec(*lesson, options.solution);
  if (!spec.ok()) {
    err << "pipescope-cli: " << spec.status().message() << "\n";
    return 2;
  }
  session::LessonCheckOptions check_options;
  check_options.real = options.real;
  if (options.real) {
    const std::string fewer = session::FewerCoresThanTheBudget(
        *spec, static_cast<int>(std::thread::hardware_concurrency()));
    if (!fewer.empty()) err << "pipescope-cli: note: " << fewer << "\n";
  }
  auto check = session::CheckLesson(*lesson, *spec, check_options);
  if (!check.ok()) {
    err << "pipescope-cli: " << lesson->name << ": " << check.status().message() << "\n";
    return 1;
  }
  const std::string which = !options.spec_path.empty() ? options.spec_path
                            : options.solution         ? "solution"
                                                       : "start";
  const std::vector<engine::Advice> hints =
      check->passed ? std::vector<engine::Advice>{}
                    : AdvisorHints(*lesson, *spec, *check, options.real);
  if (options.json) {
    json goals = json::array();
    for (const auto& g : check->goals) goals.push_back(GoalJson(g));
    json advice = json::array();
    for (const auto& a : hints) {
      advice.push_back({{"kind", a.kind}, {"change", a.change}, {"text", a.text}});
    }
    out << json{{"lesson", lesson->name},  {"spec", which},
                {"passed", check->passed}, {"mode", options.real ? "real" : "simulated"},
                {"goals", goals},          {"advisor_hints", advice}}
               .dump(2)
        << "\n";
  } else {
    out << lesson->title << " (" << which << ", " << (options.real ? "real run" : "simulated")
        << ")\n";
    for (const auto& g : check->goals) {
      out << (g.met ? "  [x] " : "  [ ] ") << g.goal.text << ": ";
      if (g.measured) {
        out << std::setprecision(3) << g.value << " (goal " << Bound(g.goal) << ")\n";
      } else {
        out << "not measured: " << g.note << "\n";
      }
    }
    out << (check->passed ? "PASSED: every goal is met\n" : "NOT YET: some goals are not met\n");
    if (!hints.empty()) {
      out << "What the advisor confirms in the simulator (it may or may not be what the lesson "
             "teaches; `lesson show "
          << lesson->name << "` has its hints):\n";
      for (const auto& a : hints) out << "  - " << a.text << "\n";
    }
  }
  return check->passed ? 0 : 1;
}

}  // namespace pipescope::cli
