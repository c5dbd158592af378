// How much faster than real time the simulator runs the example and benchmark pipelines:
// each iteration simulates 10 s of virtual time on the spec's costs, recording the trace
// into a model as `simulate` does. Counter x_real_time = virtual seconds per wall second
// (real time: the model is built on a thread of its own).
#include <benchmark/benchmark.h>

#include <string>

#include "engine/sim/simulator.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/model.h"

namespace {

using namespace pipescope;

void BM_Simulate(benchmark::State& state, const std::string& spec_file) {
  auto spec = engine::LoadSpecFile(std::string(PIPESCOPE_RESOURCES) + "/pipelines/" + spec_file);
  if (!spec.ok()) {
    state.SkipWithError(spec.status().message().c_str());
    return;
  }
  auto model = sim::DefaultCostModel(*spec, 2);
  if (!model.ok()) {
    state.SkipWithError(model.status().message().c_str());
    return;
  }
  constexpr double kVirtualS = 10;
  uint64_t events = 0;
  for (auto _ : state) {
    trace::Model trace;
    sim::SimulationOptions options;
    options.duration_s = kVirtualS;
    options.sinks = {&trace};
    auto r = sim::Simulate(*spec, *model, options);
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    events = r->events;
    benchmark::DoNotOptimize(trace.event_count());
  }
  state.counters["x_real_time"] = benchmark::Counter(
      kVirtualS * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(events);
}

#define SIM_BENCHMARK(name, file)                         \
  BENCHMARK_CAPTURE(BM_Simulate, name, std::string(file)) \
      ->Unit(benchmark::kMillisecond)                     \
      ->UseRealTime()

SIM_BENCHMARK(input_bound_demo, "input_bound_demo.pbtxt");
SIM_BENCHMARK(cpu_bound, "cpu_bound.pbtxt");
SIM_BENCHMARK(overlap, "overlap.pbtxt");
SIM_BENCHMARK(imagenet_like, "imagenet_like.pbtxt");
SIM_BENCHMARK(chess_unpack, "chess_unpack.pbtxt");
SIM_BENCHMARK(deep_chain, "benchmarks/deep_chain.pbtxt");
SIM_BENCHMARK(filter_heavy, "benchmarks/filter_heavy.pbtxt");
SIM_BENCHMARK(mixed_cpu_io, "benchmarks/mixed_cpu_io.pbtxt");
SIM_BENCHMARK(slow_storage, "benchmarks/slow_storage.pbtxt");

}  // namespace

BENCHMARK_MAIN();
