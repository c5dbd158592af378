// `pipescope-cli grid`: steps/s at every point of a grid of knob values, as JSON with the
// best point; unknown knobs are errors that name the knob.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace pipescope::testing {
namespace {

nlohmann::json JsonOf(const std::string& out) { return nlohmann::json::parse(JsonPart(out)); }

TEST(CliGridTest, RunsEveryPointAndReportsTheBest) {
  const std::string plot = ::testing::TempDir() + "/grid_" + std::to_string(getpid()) + ".png";
  const auto r = Cli("grid " + Pipeline("input_bound_demo.pbtxt") +
                     " --knobs decode.num_parallel_calls,prefetch.buffer_size --duration 0.3 "
                     "--json --plot " +
                     plot);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("point 1/"), std::string::npos) << "progress while it runs";
  const auto j = JsonOf(r.out);
  const auto& results = j["results"];
  ASSERT_GE(results.size(), 2u * 4u) << "parallelism 1, 2, ... times buffer 0, 1, 2, ...";
  double best = 0;
  for (const auto& row : results) {
    EXPECT_TRUE(row["knobs"].contains("decode.num_parallel_calls"));
    EXPECT_TRUE(row["knobs"].contains("prefetch.buffer_size"));
    // A point of 0.3 s on a busy machine may end before its first step: its rate is then 0.
    EXPECT_GE(row["steps_per_s"].get<double>(), 0);
    best = std::max(best, row["steps_per_s"].get<double>());
  }
  EXPECT_GT(best, 0);
  EXPECT_EQ(j["best"]["steps_per_s"].get<double>(), best);
  EXPECT_EQ(results[0]["knobs"]["decode.num_parallel_calls"], 1);
  EXPECT_EQ(results[0]["knobs"]["prefetch.buffer_size"], 0);
  // The chart: a PNG (its signature, then the IHDR chunk's width and height, big-endian).
  std::ifstream png(plot, std::ios::binary);
  std::string head(24, '\0');
  ASSERT_TRUE(png.read(head.data(), 24)) << "grid --plot wrote " << plot;
  EXPECT_EQ(head.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  auto u32 = [&](size_t at) {
    return (static_cast<uint32_t>(static_cast<unsigned char>(head[at])) << 24) |
           (static_cast<uint32_t>(static_cast<unsigned char>(head[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<unsigned char>(head[at + 2])) << 8) |
           static_cast<uint32_t>(static_cast<unsigned char>(head[at + 3]));
  };
  EXPECT_EQ(u32(16), 960u);
  EXPECT_EQ(u32(20), 600u);
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
