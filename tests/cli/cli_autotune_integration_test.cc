// `pipescope-cli autotune`: tunes the input-bound demo on this machine and reports the
// knobs it chose, steps/s before and after, and writes a tuned spec that runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace pipescope::testing {
namespace {

nlohmann::json JsonOf(const std::string& out) { return nlohmann::json::parse(JsonPart(out)); }

TEST(CliAutotuneTest, TunesTheDemoAndWritesASpecThatRuns) {
  const std::string tuned = ::testing::TempDir() + "/pipescope_tuned.pbtxt";
  const auto r = Cli("autotune " + Pipeline("input_bound_demo.pbtxt") +
                     " --cores 2 --measure-s 0.8 --budget-s 10 --json --out " + tuned);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = JsonOf(r.out);
  for (const char* field :
       {"knobs", "knobs_before", "steps_per_s_before", "steps_per_s_after", "cores_used",
        "buffer_bytes", "ram_budget_bytes", "tuning_s", "advice"}) {
    EXPECT_TRUE(j.contains(field)) << field;
  }
  EXPECT_EQ(j["knobs_before"]["decode.num_parallel_calls"], 1);
  // Keeping a round needs a measured gain, which a loaded machine may deny; the result is
  // never worse than what was measured first.
  EXPECT_GE(j["steps_per_s_after"].get<double>(), j["steps_per_s_before"].get<double>());
  EXPECT_LE(j["cores_used"].get<int>(), 2);
  const auto run = Cli("run " + tuned + " --duration 0.3 --json");
  EXPECT_EQ(run.exit_code, 0) << run.out;
}

TEST(CliAutotuneTest, AnUnknownAlgorithmIsAnError) {
  const auto r = Cli("autotune " + Pipeline("input_bound_demo.pbtxt") + " --algorithm magic");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("unknown --algorithm 'magic'"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pipescope::testing
