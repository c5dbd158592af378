// Engine figures (docs/BENCHMARKS.md): per-element overhead of the runtime, hand-off
// costs of asynchronous ops, and real concurrency. Run the full set with
//   build/tests/engine_benchmark
// Compare rows of one run as ratios: the machines are shared and noisy.
#include <benchmark/benchmark.h>

#include "engine/device/simulated_device.h"
#include "engine/runtime/training_run.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::engine {
namespace {

// With `record`, the pipeline records into a recorder whose collector drains the events
// and discards them: the cost measured is the engine's recording, not a sink's.
std::unique_ptr<Pipeline> Build(const std::string& text, bool record) {
  static record::Recorder* recorder = [] {
    auto* r = new record::Recorder();
    r->Start();
    return r;
  }();
  auto spec = ParseSpecText(text, "benchmark");
  if (!spec.ok()) return nullptr;
  Pipeline::Options options;
  if (record) options.recorder = recorder;
  auto p = Pipeline::Create(*spec, options);
  return p.ok() ? std::move(p).value() : nullptr;
}

// Pulls one element per iteration and reports elements/s.
void PullElements(benchmark::State& state, const std::string& text, bool record) {
  auto p = Build(text, record);
  if (!p) {
    state.SkipWithError("spec failed to build");
    return;
  }
  Element e;
  bool end = false;
  for (auto _ : state) {
    if (!p->GetNext(e, end).ok() || end) {
      state.SkipWithError("pipeline ended early");
      break;
    }
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}

const std::string kEndless = "source { range { start: 0 stop: 1000000000000000 } }\n";

std::string NoOpMaps(int n, const std::string& parallel) {
  std::string ops;
  for (int i = 0; i < n; ++i) ops += "ops { map { fn { identity {} } " + parallel + "} }\n";
  return ops;
}

void BM_NoOpChainSequential(benchmark::State& state) {
  PullElements(state, kEndless + NoOpMaps(5, ""), state.range(0) != 0);
}
BENCHMARK(BM_NoOpChainSequential)->ArgName("recording")->Arg(0)->Arg(1);

// overhead.pbtxt's reading thread without its hand-offs: batches of 1024 records of 96 bytes
// from a synthetic source, per record. With recording, each record is a call of the source:
// what recording adds to the fastest pipeline's critical thread.
void BM_BatchOfCheapRecords(benchmark::State& state) {
  PullElements(state,
               "source { synthetic { records: -1 record_bytes: 96 } }\n"
               "ops { batch { batch_size: 1024 } }\n",
               state.range(0) != 0);
  state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_BatchOfCheapRecords)->ArgName("recording")->Arg(0)->Arg(1);

void BM_ParallelMapNoOp(benchmark::State& state) {
  PullElements(
      state, kEndless + NoOpMaps(1, "num_parallel_calls: " + std::to_string(state.range(0)) + " "),
      false);
}
BENCHMARK(BM_ParallelMapNoOp)->ArgName("workers")->Arg(1)->Arg(2)->UseRealTime();

void BM_PrefetchHandOff(benchmark::State& state) {
  PullElements(
      state,
      kEndless + "ops { prefetch { buffer_size: " + std::to_string(state.range(0)) + " } }\n",
      false);
}
BENCHMARK(BM_PrefetchHandOff)->ArgName("buffer")->Arg(1)->Arg(16)->Arg(256)->UseRealTime();

// cpu_work of 1 ms per element at parallelism 1 and 2: on two cores the ratio of the two
// rows' elements/s is the real concurrency.
void BM_CpuWorkParallelism(benchmark::State& state) {
  PullElements(state,
               kEndless + "ops { map { fn { cpu_work { duration: \"1ms\" } } num_parallel_calls: " +
                   std::to_string(state.range(0)) + " } }\n",
               true);
}
BENCHMARK(BM_CpuWorkParallelism)
    ->ArgName("parallelism")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->MinTime(2.0);

// overlap.pbtxt's situation: a 5 ms producer and a 5 ms training step, with prefetch's
// buffer_size 0 (pass-through) or 2. One iteration is one training step.
void BM_TrainStepOverlap(benchmark::State& state) {
  auto p = Build(kEndless +
                     "ops { map { fn { cpu_work { duration: \"5ms\" } } } }\n"
                     "ops { prefetch { buffer_size: " +
                     std::to_string(state.range(0)) + " } }\n",
                 true);
  CancellationToken cancellation;
  SimulatedDevice device(5'000'000, 1, cancellation);
  Element e;
  bool end = false;
  for (auto _ : state) {
    if (!p->GetNext(e, end).ok() || !device.Submit(e).ok()) {
      state.SkipWithError("run failed");
      break;
    }
  }
  device.Drain();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TrainStepOverlap)->ArgName("prefetch")->Arg(0)->Arg(2)->UseRealTime()->MinTime(2.0);

// chess_unpack: bit-unpacking per element (parallel map, then batch) versus the batched
// form after batch. One iteration is one batch of 1024 positions.
void BM_ChessUnpack(benchmark::State& state) {
  const bool vectorised = state.range(0) != 0;
  const std::string source = "source { synthetic { records: -1 record_bytes: 96 } }\n";
  const std::string map = "ops { map { fn { unpack_bits {} } num_parallel_calls: 2 } }\n";
  const std::string batch = "ops { batch { batch_size: 1024 } }\n";
  PullElements(state, source + (vectorised ? batch + map : map + batch), false);
  state.SetItemsProcessed(state.iterations() * 1024);
}
BENCHMARK(BM_ChessUnpack)->ArgName("vectorised")->Arg(0)->Arg(1)->UseRealTime();

}  // namespace
}  // namespace pipescope::engine

BENCHMARK_MAIN();
