// The pipelines of TensorFlow's guide "Better performance with the tf.data API"
// (resources/pipelines/guide), simulated: each takes the time its sleeps allow under
// tf.data's semantics, worked out in the spec's header ("The sleeps allow: N ms."), within
// 5%. Virtual time, so the figures hold on a busy machine; `run` is measured against the
// same line by scripts/bench-guide.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "../engine/test_support.h"
#include "engine/sim/simulator.h"

namespace pipescope::sim {
namespace {

struct GuideCase {
  std::string file;
  int64_t steps;
};

// The header's "# The sleeps allow: N ms." in seconds; -1 when the spec has none.
double SleepsAllow(const std::string& text) {
  const std::string key = "# The sleeps allow: ";
  const size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + key.size())) / 1e3;
}

void PrintTo(const GuideCase& c, std::ostream* os) { *os << c.file; }

class GuidePipelineTest : public ::testing::TestWithParam<GuideCase> {};

TEST_P(GuidePipelineTest, TakesTheTimeItsSleepsAllow) {
  const GuideCase& c = GetParam();
  std::ifstream in(std::string(PIPESCOPE_RESOURCES) + "/pipelines/guide/" + c.file);
  ASSERT_TRUE(in) << c.file;
  std::stringstream text;
  text << in.rdbuf();
  const double seconds = SleepsAllow(text.str());
  ASSERT_GT(seconds, 0) << c.file << " says nothing of what its sleeps allow";
  const spec::PipelineSpec spec = engine::testing::Spec(text.str());
  auto model = DefaultCostModel(spec, 2);
  ASSERT_TRUE(model.ok()) << model.status().message();
  SimulationOptions options;
  options.duration_s = 30;
  auto r = Simulate(spec, *model, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->summary.end_of_data);
  EXPECT_EQ(r->summary.steps, c.steps);
  EXPECT_NEAR(r->summary.duration_s, seconds, 0.05 * seconds);
}

INSTANTIATE_TEST_SUITE_P(
    Guide, GuidePipelineTest,
    ::testing::Values(GuideCase{"naive.pbtxt", 6}, GuideCase{"prefetch.pbtxt", 6},
                      GuideCase{"sequential_interleave.pbtxt", 12},
                      GuideCase{"parallel_interleave.pbtxt", 12},
                      GuideCase{"sequential_map.pbtxt", 6}, GuideCase{"parallel_map.pbtxt", 6},
                      GuideCase{"cache.pbtxt", 15}),
    [](const ::testing::TestParamInfo<GuideCase>& param) {
      std::string name = param.param.file.substr(0, param.param.file.find('.'));
      name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
      return name;
    });

}  // namespace
}  // namespace pipescope::sim
