// `pipescope-cli compare A B`: two specs run for the same time, figures side by side, the
// knobs that differ and a one-line verdict.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli_runner.h"

namespace pipescope::testing {
namespace {

TEST(CliCompareTest, SetsTwoSpecsSideBySideWithTheirKnobDifferences) {
  std::ifstream in(Pipeline("input_bound_demo.pbtxt"));
  std::stringstream text;
  text << in.rdbuf();
  std::string tuned = text.str();
  const auto at = tuned.find("num_parallel_calls: 1");
  ASSERT_NE(at, std::string::npos);
  tuned.replace(at, 21, "num_parallel_calls: 2");
  const std::string b = ::testing::TempDir() + "/pipescope_compare_b.pbtxt";
  std::ofstream(b) << tuned;

  const auto r =
      Cli("compare " + Pipeline("input_bound_demo.pbtxt") + " " + b + " --duration 0.6 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(JsonPart(r.out));
  for (const char* side : {"a", "b"}) {
    for (const char* figure : {"steps_per_s", "input_wait_fraction", "device_busy_fraction",
                               "worker_threads", "cpu_cores_busy", "buffered_elements"}) {
      EXPECT_TRUE(j[side]["figures"].contains(figure)) << side << "." << figure;
    }
  }
  ASSERT_EQ(j["knob_differences"].size(), 1u) << j["knob_differences"].dump();
  EXPECT_EQ(j["knob_differences"][0]["knob"], "decode.num_parallel_calls");
  EXPECT_EQ(j["knob_differences"][0]["a"], 1);
  EXPECT_EQ(j["knob_differences"][0]["b"], 2);
  EXPECT_EQ(j["a"]["figures"]["worker_threads"], 1);
  EXPECT_EQ(j["b"]["figures"]["worker_threads"], 2);
  // On this machine's cores, whatever the threads: CPU seconds per second.
  for (const char* side : {"a", "b"}) {
    const double busy = j[side]["figures"]["cpu_cores_busy"].get<double>();
    EXPECT_GT(busy, 0.1) << side;
    EXPECT_LE(busy, std::thread::hardware_concurrency() + 0.5) << side;
  }
  // The demo's buffers: decode's slots and the prefetch of 2 batches of 4 x 64 KiB images.
  EXPECT_EQ(j["a"]["figures"]["buffer_bytes"], (1 + 2 * 4) * 65536);
  EXPECT_EQ(j["b"]["figures"]["buffer_bytes"], (2 + 2 * 4) * 65536);
  EXPECT_EQ(j["same_ops"], true);
  EXPECT_NE(j["verdict"].get<std::string>().find("decode.num_parallel_calls 1 -> 2"),
            std::string::npos)
      << j["verdict"];
}

TEST(CliCompareTest, AMissingSpecIsNamed) {
  const auto r = Cli("compare " + Pipeline("input_bound_demo.pbtxt") + " /nonexistent.pbtxt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("/nonexistent.pbtxt"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pipescope::testing
