// Fuzz target: the simulator's cost model files (JSON, written by calibrate or by hand) on
// arbitrary bytes. Parsing must give a model or an error; a model that parses must then
// simulate (a small pipeline of every kind of cost, a bounded number of steps) without
// crashing, hanging or overflowing, whatever its numbers.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/sim/cost_model_json.h"
#include "engine/sim/simulator.h"
#include "engine/spec/spec_loader.h"

namespace {

const pipescope::spec::PipelineSpec& Spec() {
  static const pipescope::spec::PipelineSpec spec = [] {
    auto s = pipescope::engine::ParseSpecText(R"(name: "fuzz"
      source { name: "files" range { start: 0 stop: 8 } }
      ops { name: "read" interleave {
              per_element { synthetic_file { records_per_file: 4 record_bytes: 64 open_latency: "1ms" } }
              cycle_length: 2 num_parallel_calls: 2 } }
      ops { name: "decode" map { fn { cpu_work { duration: "1ms" } } num_parallel_calls: 2 } }
      ops { name: "keep" filter { predicate { keep_fraction { fraction: 0.5 } } } }
      ops { name: "shuffle" shuffle { buffer_size: 4 } }
      ops { name: "batch" batch { batch_size: 2 } }
      ops { name: "epochs" repeat {} }
      ops { name: "prefetch" prefetch { buffer_size: 2 } }
      train_step { step_time: "1ms" })",
                                              "fuzz spec");
    return std::move(s).value();
  }();
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto base = pipescope::sim::DefaultCostModel(Spec(), 2);
  if (!base.ok()) return 0;
  auto model = pipescope::sim::ParseCostModelJson(
      std::string(reinterpret_cast<const char*>(data), size), *base, "fuzz.json");
  if (!model.ok()) return 0;
  pipescope::sim::SimulationOptions options;
  options.duration_s = 0.05;
  options.max_steps = 200;
  auto result = pipescope::sim::Simulate(Spec(), *model, options);
  (void)result;
  return 0;
}
