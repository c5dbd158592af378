// pipescope-cli lesson: every lesson's start fails its goals and its solution meets them,
// in the simulator (the same on every machine).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace pipescope::testing {
namespace {

using nlohmann::json;

std::vector<std::string> LessonNames() {
  const auto r = Cli("lesson list --json");
  if (r.exit_code != 0) return {};
  std::vector<std::string> names;
  for (const auto& l : json::parse(r.out)) names.push_back(l["name"]);
  return names;
}

TEST(CliLessonTest, ListsAtLeastTwelveLessons) {
  const auto names = LessonNames();
  EXPECT_GE(names.size(), 12u);
  const auto text = Cli("lesson list");
  EXPECT_NE(text.out.find("Missing prefetch"), std::string::npos) << text.out;
}

TEST(CliLessonTest, ShowAndUnknownLessons) {
  const auto show = Cli("lesson show 1");
  ASSERT_EQ(show.exit_code, 0) << show.out;
  EXPECT_NE(show.out.find("prefetch"), std::string::npos);
  // What an instructor needs beside the text: the hints lesson check points to, the
  // solution, and the cost model a lesson simulates with (lesson 3's own).
  EXPECT_NE(show.out.find("Hints (one at a time"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("Solution: "), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("Cost model: "), std::string::npos) << show.out;
  const auto modelled = Cli("lesson show 3");
  EXPECT_NE(modelled.out.find("Cost model: "), std::string::npos) << modelled.out;
  EXPECT_NE(modelled.out.find("--model "), std::string::npos) << modelled.out;
  const auto unknown = Cli("lesson check no-such-lesson");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.out.find("no lesson 'no-such-lesson'"), std::string::npos) << unknown.out;
  // A number too long for an int is an unknown lesson, not a crash.
  const auto huge = Cli("lesson show 99999999999");
  EXPECT_EQ(huge.exit_code, 2);
  EXPECT_NE(huge.out.find("no lesson '99999999999'"), std::string::npos) << huge.out;
}

class EveryLesson : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryLesson, StartFailsAndSolutionPasses) {
  const auto start = Cli("lesson check " + GetParam() + " --json");
  ASSERT_EQ(start.exit_code, 1) << start.out;
  EXPECT_FALSE(json::parse(JsonPart(start.out))["passed"].get<bool>());
  const auto solution = Cli("lesson check " + GetParam() + " --solution --json");
  ASSERT_EQ(solution.exit_code, 0) << solution.out;
  const json j = json::parse(JsonPart(solution.out));
  EXPECT_TRUE(j["passed"].get<bool>());
  for (const auto& g : j["goals"]) EXPECT_TRUE(g["measured"].get<bool>()) << g.dump();
  EXPECT_TRUE(j["advisor_hints"].empty()) << "a passing spec needs no hints";
}

// A spec that misses its goals hears what the advisor confirms in the simulator: slow
// storage read one file at a time is read in parallel.
TEST(CliLessonTest, AStartThatMissesItsGoalsGetsTheAdvisorsHints) {
  const auto start = Cli("lesson check 04-interleave-slow-storage --json");
  ASSERT_EQ(start.exit_code, 1) << start.out;
  const json j = json::parse(JsonPart(start.out));
  ASSERT_FALSE(j["advisor_hints"].empty()) << start.out;
  EXPECT_EQ(j["advisor_hints"][0]["kind"], "interleave_files") << "the advice list's name for it";
  EXPECT_NE(j["advisor_hints"][0]["change"].get<std::string>().find("read.num_parallel_calls"),
            std::string::npos);
  const auto text = Cli("lesson check 04-interleave-slow-storage");
  EXPECT_NE(text.out.find("What the advisor confirms in the simulator"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Lessons, EveryLesson, ::testing::ValuesIn(LessonNames()),
                         [](const auto& test_param) {
                           std::string n = test_param.param;
                           for (char& c : n)
                             c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

}  // namespace
}  // namespace pipescope::testing
