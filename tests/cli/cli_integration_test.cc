// pipescope-cli run, end to end: the JSON summary's fields, --print, --set and errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/cli/cli_runner.h"

namespace {

using pipescope::testing::Cli;
using pipescope::testing::Pipeline;

TEST(CliRunTest, JsonSummaryHasTheDocumentedFields) {
  auto r = Cli("run " + Pipeline("input_bound_demo.pbtxt") + " --steps 6 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"duration_s", "steps", "steps_per_s", "elements_per_s",
                          "input_wait_fraction", "device_busy_fraction", "stages", "device"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["steps"], 6);
  EXPECT_EQ(j["device"], "simulated");
  ASSERT_EQ(j["stages"].size(), 4u);
  const auto& decode = j["stages"][1];
  EXPECT_EQ(decode["name"], "decode");
  EXPECT_EQ(decode["op"], "map");
  for (const char* key : {"parallelism", "buffer_size", "elements", "self_ns_per_element",
                          "busy_fraction", "waiting_input_fraction", "blocked_output_fraction"}) {
    EXPECT_TRUE(decode.contains(key)) << key;
  }
  EXPECT_EQ(decode["parallelism"], 1);
  EXPECT_GT(decode["self_ns_per_element"].get<double>(), 2e6);  // 3 ms of cpu_work
}

TEST(CliRunTest, SetChangesAKnobOfANamedOp) {
  auto r = Cli("run " + Pipeline("input_bound_demo.pbtxt") +
               " --steps 3 --json --set decode.num_parallel_calls=2 --set prefetch.buffer_size=5");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stages"][1]["parallelism"], 2);
  EXPECT_EQ(j["stages"][3]["buffer_size"], 5);
}

TEST(CliRunTest, PrintShowsTheFirstElementsAsJsonLines) {
  const std::string spec =
      std::string(PIPESCOPE_RESOURCES) + "/../tests/cli/data/range_batch.pbtxt";
  auto r = Cli("run " + spec + " --print 2 --steps 3");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::istringstream lines(r.out);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(nlohmann::json::parse(first)["value"], nlohmann::json::parse("[0,1,2]"));
  EXPECT_EQ(nlohmann::json::parse(second)["value"], nlohmann::json::parse("[3,4,5]"));
}

TEST(CliRunTest, BadInputGivesAReadableErrorAndExitCode2) {
  auto r = Cli("run /nonexistent.pbtxt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("cannot open pipeline spec '/nonexistent.pbtxt'"), std::string::npos)
      << r.out;
  r = Cli("run " + Pipeline("input_bound_demo.pbtxt") + " --set decode.num_parallel_calls=-5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("num_parallel_calls must be ≥ 0 or AUTOTUNE, got -5"), std::string::npos)
      << r.out;
  r = Cli("run " + Pipeline("input_bound_demo.pbtxt") + " --set nosuch.knob=1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("no op or source named 'nosuch'"), std::string::npos) << r.out;
}

// `help` lists the commands, `help COMMAND` gives that command's options; an unknown one is
// said, exit 2.
TEST(CliRunTest, HelpListsTheCommandsAndGivesEachOnesOptions) {
  const auto all = Cli("help");
  EXPECT_EQ(all.exit_code, 0) << all.out;
  EXPECT_NE(all.out.find("Usage: pipescope-cli [OPTIONS] SUBCOMMAND"), std::string::npos)
      << all.out;
  EXPECT_NE(all.out.find("simulate"), std::string::npos) << all.out;
  const auto one = Cli("help simulate");
  EXPECT_EQ(one.exit_code, 0) << one.out;
  EXPECT_NE(one.out.find("Usage: pipescope-cli simulate [OPTIONS] spec"), std::string::npos)
      << one.out;
  const auto none = Cli("help nosuch");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.out.find("there is no command 'nosuch'"), std::string::npos) << none.out;
}

TEST(CliRunTest, APipelineErrorExitsWithCode1AndNamesTheOp) {
  const std::string spec =
      std::string(PIPESCOPE_RESOURCES) + "/../tests/cli/data/bad_normalize.pbtxt";
  auto r = Cli("run " + spec + " --steps 3");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("map 'norm' (normalize)"), std::string::npos) << r.out;
}

}  // namespace
