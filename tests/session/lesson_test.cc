// Lesson folders: a lesson whose goal names a metric no check knows is refused when it is
// loaded, with the file and the metrics there are, rather than shown as never met.
#include "app/session/lesson.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/session/lesson_check.h"

namespace pipescope::session {
namespace {

namespace fs = std::filesystem;

fs::path WriteLesson(const std::string& metric) {
  const fs::path dir = fs::temp_directory_path() / ("pipescope_lesson_test_" + metric);
  fs::create_directories(dir);
  std::ofstream(dir / "lesson.json")
      << R"({"title": "t", "goals": [{"metric": ")" << metric << R"(", "at_least": 0.9}]})";
  std::ofstream(dir / "explanation.md") << "# t\n";
  for (const char* spec : {"start.pbtxt", "solution.pbtxt"}) {
    std::ofstream(dir / spec) << "name: \"t\" source { range { start: 0 stop: 10 } }\n";
  }
  return dir;
}

TEST(LessonTest, AKnownMetricLoads) {
  auto lesson = LoadLesson(WriteLesson("device_busy").string());
  ASSERT_TRUE(lesson.ok()) << lesson.status().message();
  EXPECT_EQ(lesson->goals.at(0).metric, "device_busy");
}

TEST(LessonTest, AnUnknownMetricIsRefusedWithTheFileAndTheKnownOnes) {
  auto lesson = LoadLesson(WriteLesson("device_bussy").string());
  ASSERT_FALSE(lesson.ok());
  const std::string& message = lesson.status().message();
  EXPECT_NE(message.find("lesson.json"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown metric 'device_bussy'"), std::string::npos) << message;
  EXPECT_NE(message.find("device_busy"), std::string::npos) << message;
}

// A real run on fewer cores than the lesson's pipeline is made for may miss goals the
// simulator meets: said before the run, and nothing said where the machine has enough.
TEST(LessonTest, ARealRunOnFewerCoresThanTheBudgetIsSaidToMayMissItsGoals) {
  spec::PipelineSpec spec;
  spec.mutable_budget()->set_cpu_cores(4);
  EXPECT_EQ(FewerCoresThanTheBudget(spec, 2),
            "this machine has 2 cores and the pipeline is made for 4 (its budget): a real run "
            "here may miss goals the simulator meets on 4; without --real the check simulates "
            "them");
  EXPECT_EQ(FewerCoresThanTheBudget(spec, 4), "");
  EXPECT_EQ(FewerCoresThanTheBudget(spec, 16), "");
  EXPECT_EQ(FewerCoresThanTheBudget(spec::PipelineSpec(), 2), "") << "no budget";
}

}  // namespace
}  // namespace pipescope::session
