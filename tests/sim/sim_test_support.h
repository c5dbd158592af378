#pragma once
// What the simulator's tests share: a spec simulated for some virtual seconds into a trace
// model, and a spec of a few ops over a source.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "../engine/test_support.h"
#include "engine/sim/simulator.h"
#include "instrumentation/trace/model.h"

namespace pipescope::sim {

using engine::testing::Spec;

struct SimRun {
  SimulationResult result;
  std::shared_ptr<trace::Model> model = std::make_shared<trace::Model>();
};

inline SimRun Simulated(const std::string& text, double seconds, uint64_t seed = 1,
                        double cores = 4, const std::function<void(CostModel&)>& adjust = {}) {
  const spec::PipelineSpec spec = Spec(text);
  auto model = DefaultCostModel(spec, cores);
  EXPECT_TRUE(model.ok()) << model.status().message();
  if (adjust) adjust(*model);
  SimRun run;
  SimulationOptions options;
  options.duration_s = seconds;
  options.seed = seed;
  options.sinks = {run.model.get()};
  auto r = Simulate(spec, *model, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) run.result = *r;
  return run;
}

inline std::string Pipeline(const std::string& ops,
                            const std::string& source = "range { start: 0 stop: 100 }",
                            const std::string& step = "1ms") {
  return "name: \"t\" source { name: \"src\" " + source + " } " + ops +
         " train_step { step_time: \"" + step + "\" }";
}

}  // namespace pipescope::sim
