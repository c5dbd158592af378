// `pipescope-cli grid`: steps/s at every point of a grid of knob values, as JSON with the
// best point; unknown knobs are errors that name the knob.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace pipescope::testing {
namespace {

nlohmann::json JsonOf(const std::string& out) { return nlohmann::json::parse(JsonPart(out)); }

TEST(CliGridTest, RunsEveryPointAndReportsTheBest) {
  const auto r =
      Cli("grid " + Pipeline("input_bound_demo.pbtxt") +
          " --knobs decode.num_parallel_calls,prefetch.buffer_size --duration 0.3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("point 1/"), std::string::npos) << "progress while it runs";
  const auto j = JsonOf(r.out);
  const auto& results = j["results"];
  ASSERT_GE(results.size(), 2u * 4u) << "parallelism 1, 2, ... times buffer 0, 1, 2, ...";
  double best = 0;
  for (const auto& row : results) {
    EXPECT_TRUE(row["knobs"].contains("decode.num_parallel_calls"));
    EXPECT_TRUE(row["knobs"].contains("prefetch.buffer_size"));
    EXPECT_GT(row["steps_per_s"].get<double>(), 0);
    best = std::max(best, row["steps_per_s"].get<double>());
  }
  EXPECT_EQ(j["best"]["steps_per_s"].get<double>(), best);
  EXPECT_EQ(results[0]["knobs"]["decode.num_parallel_calls"], 1);
  EXPECT_EQ(results[0]["knobs"]["prefetch.buffer_size"], 0);
}

TEST(CliGridTest, TheDefaultGridCoversParallelismAndBuffersOnly) {
  const auto r = Cli("grid " + Pipeline("input_bound_demo.pbtxt") + " --duration 0.1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto knobs = JsonOf(r.out)["results"][0]["knobs"];
  EXPECT_TRUE(knobs.contains("decode.num_parallel_calls"));
  EXPECT_TRUE(knobs.contains("prefetch.buffer_size"));
  EXPECT_FALSE(knobs.contains("batch.batch_size")) << "batch size changes the output";
}

TEST(CliGridTest, AnUnknownKnobIsNamed) {
  const auto r = Cli("grid " + Pipeline("input_bound_demo.pbtxt") + " --knobs decode.nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("no knob 'decode.nope'"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pipescope::testing
