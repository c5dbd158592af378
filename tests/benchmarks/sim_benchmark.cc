// How much faster than real time the simulator runs the example and benchmark pipelines:
// each iteration simulates 10 s of virtual time on the spec's costs, recording the trace
// into a model as `simulate` does. Counter x_real_time = virtual seconds per wall second
// (real time: the model is built on a thread of its own).
#include <benchmark/benchmark.h>

#include <string>
#include <type_traits>
#include <vector>

#include "engine/sim/simulator.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/record/trace_sink.h"
#include "instrumentation/trace/model.h"

namespace {

using namespace pipescope;

constexpr double kVirtualS = 10;

// The spec and its default cost model (2 cores), or false with the benchmark skipped.
bool LoadSpecAndModel(benchmark::State& state, const std::string& spec_file,
                      spec::PipelineSpec& spec, sim::CostModel& model) {
  auto loaded = engine::LoadSpecFile(std::string(PIPESCOPE_RESOURCES) + "/pipelines/" + spec_file);
  if (!loaded.ok()) {
    state.SkipWithError(loaded.status().message().c_str());
    return false;
  }
  auto costs = sim::DefaultCostModel(*loaded, 2);
  if (!costs.ok()) {
    state.SkipWithError(costs.status().message().c_str());
    return false;
  }
  spec = *std::move(loaded);
  model = *std::move(costs);
  return true;
}

// Simulates kVirtualS of `spec` into `sinks`; false with the benchmark skipped on an error.
bool SimulateOnce(benchmark::State& state, const spec::PipelineSpec& spec,
                  const sim::CostModel& model, std::vector<record::TraceSink*> sinks,
                  sim::SimulationResult& result) {
  sim::SimulationOptions options;
  options.duration_s = kVirtualS;
  options.sinks = std::move(sinks);
  auto r = sim::Simulate(spec, model, options);
  if (!r.ok()) {
    state.SkipWithError(r.status().message().c_str());
    return false;
  }
  result = *r;
  return true;
}

// Counter x_real_time: virtual seconds simulated per wall second.
void CountVirtualTime(benchmark::State& state) {
  state.counters["x_real_time"] = benchmark::Counter(
      kVirtualS * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// Keeps a simulation's batches, to build models from them again and again.
class BatchRecorder : public record::TraceSink {
 public:
  void Consume(const record::TraceBatch& batch, bool final) override {
    batches.push_back(batch);
    finals.push_back(final);
  }
  std::vector<record::TraceBatch> batches;
  std::vector<bool> finals;
};

// A sink that takes the batches and keeps nothing (BM_SimulateHandedOff).
class CountingSink : public record::TraceSink {
 public:
  void Consume(const record::TraceBatch& batch, bool) override { events += batch.events.size(); }
  size_t events = 0;
};

struct NoSink {};  // no trace kept (BM_SimulateWithoutTrace)

// Simulates kVirtualS of the spec per iteration into a fresh Sink.
template <typename Sink>
void SimulateIntoFresh(benchmark::State& state, const std::string& spec_file) {
  spec::PipelineSpec spec;
  sim::CostModel model;
  if (!LoadSpecAndModel(state, spec_file, spec, model)) return;
  sim::SimulationResult r;
  for (auto _ : state) {
    Sink sink;
    std::vector<record::TraceSink*> sinks;
    if constexpr (!std::is_same_v<Sink, NoSink>) sinks.push_back(&sink);
    if (!SimulateOnce(state, spec, model, std::move(sinks), r)) return;
    benchmark::DoNotOptimize(sink);
  }
  CountVirtualTime(state);
  state.counters["events"] = static_cast<double>(r.events);
}

// As `simulate` runs: the trace model built on the sink thread as the simulation goes.
void BM_Simulate(benchmark::State& state, const std::string& spec_file) {
  SimulateIntoFresh<trace::Model>(state, spec_file);
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

// The two halves of BM_Simulate, each on one thread: the simulation with no trace kept
// (what the autotuners' what-if runs do), and the trace model built from the batches of a
// simulated run (the sink thread's work, BM_ModelFromSimulation below), per event.
void BM_SimulateWithoutTrace(benchmark::State& state, const std::string& spec_file) {
  SimulateIntoFresh<NoSink>(state, spec_file);
}
BENCHMARK_CAPTURE(BM_SimulateWithoutTrace, imagenet_like, std::string("imagenet_like.pbtxt"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SimulateWithoutTrace, chess_unpack, std::string("chess_unpack.pbtxt"))
    ->Unit(benchmark::kMillisecond);

// The simulation with its trace recorded and handed to the sink thread, but no model
// built. Set beside BM_Simulate, it shows what building the model on the other thread costs
// the simulation's (on a machine whose two cores share one core's units, about 40%).
void BM_SimulateHandedOff(benchmark::State& state, const std::string& spec_file) {
  SimulateIntoFresh<CountingSink>(state, spec_file);
}
BENCHMARK_CAPTURE(BM_SimulateHandedOff, imagenet_like, std::string("imagenet_like.pbtxt"))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_SimulateHandedOff, chess_unpack, std::string("chess_unpack.pbtxt"))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_ModelFromSimulation(benchmark::State& state, const std::string& spec_file) {
  spec::PipelineSpec spec;
  sim::CostModel model;
  if (!LoadSpecAndModel(state, spec_file, spec, model)) return;
  BatchRecorder recorder;
  sim::SimulationResult r;
  if (!SimulateOnce(state, spec, model, {&recorder}, r)) return;
  for (auto _ : state) {
    trace::Model trace;
    for (size_t i = 0; i < recorder.batches.size(); ++i) {
      trace.Consume(recorder.batches[i], recorder.finals[i]);
    }
    benchmark::DoNotOptimize(trace.event_count());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * r.events));
}
BENCHMARK_CAPTURE(BM_ModelFromSimulation, imagenet_like, std::string("imagenet_like.pbtxt"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ModelFromSimulation, chess_unpack, std::string("chess_unpack.pbtxt"))
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
