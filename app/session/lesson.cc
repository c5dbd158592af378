#include "app/session/lesson.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "app/session/lesson_goals.h"
#include "engine/core/text_file.h"

namespace pipescope::session {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

engine::Status ReadGoal(const json& g, const std::string& where, LessonGoal& goal) {
  if (!g.is_object() || !g.contains("metric") || !g["metric"].is_string()) {
    return engine::InvalidArgument(where + ": a goal needs a \"metric\"");
  }
  goal.metric = g["metric"].get<std::string>();
  if (std::string unknown = UnknownMetric(goal.metric); !unknown.empty()) {
    return engine::InvalidArgument(where + ": " + unknown);
  }
  goal.op = g.value("op", "");
  goal.text = g.value("text", goal.metric);
  if (g.contains("at_least")) goal.at_least = g["at_least"].get<double>();
  if (g.contains("at_most")) goal.at_most = g["at_most"].get<double>();
  if (!g.contains("at_least") && !g.contains("at_most")) {
    return engine::InvalidArgument(where + ": goal '" + goal.metric +
                                   "' needs at_least or at_most");
  }
  return engine::Status::Ok();
}

// The folder of the running executable; empty where the system does not say.
fs::path ExecutableFolder() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path() : exe.parent_path();
}

}  // namespace

std::string LessonsFolder() {
  if (const char* env = std::getenv("PIPESCOPE_LESSONS"); env && *env) return env;
  // A copy of the executable with its resources beside it (an unpacked release, a workshop's
  // folder) reads its own lessons, not those of the tree it was built from.
  if (const fs::path exe = ExecutableFolder(); !exe.empty()) {
    for (const fs::path& beside :
         {exe / "resources" / "lessons", exe / ".." / "share" / "pipescope" / "lessons"}) {
      std::error_code error;
      if (fs::is_directory(beside, error)) return beside.lexically_normal().string();
    }
  }
  return std::string(PIPESCOPE_RESOURCES_DIR) + "/lessons";
}

engine::Result<Lesson> LoadLesson(const std::string& folder) {
  const fs::path dir(folder);
  Lesson lesson;
  lesson.folder = folder;
  lesson.name = dir.filename().string();
  const std::string where = (dir / "lesson.json").string();
  ASSIGN_OR_RETURN(std::string text,
                   engine::ReadWholeFile((dir / "lesson.json").string(), "lesson"));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return engine::InvalidArgument(where + ": not a JSON object");
  }
  try {
    lesson.title = j.value("title", lesson.name);
    lesson.teaches = j.value("concept", "");
    lesson.duration_s = j.value("duration_s", 10.0);
    lesson.workers = j.value("workers", 1);
    for (const auto& h : j.value("hints", json::array()))
      lesson.hints.push_back(h.get<std::string>());
    for (const auto& g : j.value("goals", json::array())) {
      LessonGoal goal;
      RETURN_IF_ERROR(ReadGoal(g, where, goal));
      lesson.goals.push_back(goal);
    }
  } catch (const json::exception& e) {
    return engine::InvalidArgument(where + ": " + e.what());
  }
  if (lesson.goals.empty()) return engine::InvalidArgument(where + ": the lesson has no goals");
  if (lesson.workers < 1) return engine::InvalidArgument(where + ": workers must be at least 1");
  ASSIGN_OR_RETURN(lesson.explanation,
                   engine::ReadWholeFile((dir / "explanation.md").string(), "lesson explanation"));
  lesson.start_path = (dir / "start.pbtxt").string();
  lesson.solution_path = (dir / "solution.pbtxt").string();
  for (const auto& p : {lesson.start_path, lesson.solution_path}) {
    if (!fs::exists(p)) return engine::NotFound(lesson.name + ": missing " + p);
  }
  if (fs::exists(dir / "model.json")) lesson.model_path = (dir / "model.json").string();
  return lesson;
}

engine::Result<std::vector<Lesson>> LoadLessons(const std::string& folder) {
  std::error_code ec;
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.is_directory() && fs::exists(entry.path() / "lesson.json"))
      dirs.push_back(entry.path());
  }
  if (ec) return engine::NotFound("cannot read the lessons folder " + folder + ": " + ec.message());
  std::sort(dirs.begin(), dirs.end());
  std::vector<Lesson> lessons;
  for (const auto& d : dirs) {
    ASSIGN_OR_RETURN(Lesson l, LoadLesson(d.string()));
    lessons.push_back(std::move(l));
  }
  return lessons;
}

engine::Result<Lesson> FindLesson(const std::vector<Lesson>& lessons, const std::string& name) {
  // A number is matched by value ("3" is "03"); one too long for an int matches nothing.
  auto number_of = [](std::string_view digits) -> std::optional<int> {
    int n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) return {};
    return n;
  };
  const std::optional<int> wanted = number_of(name);
  for (const auto& l : lessons) {
    const size_t dash = l.name.find('-');
    const std::string_view full(l.name);
    const std::string_view rest = dash == std::string::npos ? "" : full.substr(dash + 1);
    const bool same_number = wanted && number_of(full.substr(0, dash)) == wanted;
    if (l.name == name || rest == name || same_number) return l;
  }
  std::string known;
  for (const auto& l : lessons) known += (known.empty() ? "" : ", ") + l.name;
  return engine::NotFound("no lesson '" + name + "' (lessons: " + known + ")");
}

}  // namespace pipescope::session
