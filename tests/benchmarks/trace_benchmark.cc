// Instrumentation figures (docs/BENCHMARKS.md): the cost of recording an event, how fast
// the collector's sinks take events, the trace file's size and load rate, the model's
// memory, and the level-of-detail query. Run the full set with
//   build/tests/trace_benchmark
// Compare rows of one run as ratios: the machines are shared and noisy.
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <random>
#include <thread>

#include "app/session/recorded_run.h"
#include "app/session/trace_formats.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/record/populate_pages.h"
#include "instrumentation/record/recorder.h"
#include "instrumentation/trace/export/trace_export.h"
#include "instrumentation/trace/format/trace_reader.h"
#include "instrumentation/trace/format/trace_writer.h"
#include "instrumentation/trace/import/chrome_trace_import.h"
#include "instrumentation/trace/import/framework_report.h"
#include "instrumentation/trace/import/json_file.h"
#include "instrumentation/trace/model.h"

namespace pipescope {
namespace {

using record::EventKind;

// ---- the hot path

// Record() alone, timestamps given: what the ring costs. Every 8 Ki events the clock
// stops while the collector drains, so that the figure is of stored events, not drops.
void BM_RecordEvent(benchmark::State& state) {
  record::Recorder recorder;
  recorder.Start();
  uint64_t t = 1;
  for (auto _ : state) {
    recorder.Record(record::Event{t, t + 10, t, 0, 1, EventKind::kWork, 0});
    if (++t % 8192 == 0) {
      state.PauseTiming();
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      state.ResumeTiming();
    }
  }
  recorder.Stop();
  state.counters["dropped"] = static_cast<double>(recorder.dropped());
}
BENCHMARK(BM_RecordEvent);

// The clock alone (record::Ticks(): the TSC where it is invariant, else CLOCK_MONOTONIC
// through the vDSO): what every recorded span pays beside Record(), and the floor under a
// recorded call's cost on this machine.
void BM_ReadClock(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(record::Ticks());
  state.counters["tsc"] = record::TickCalibration::Get().tsc ? 1 : 0;
}
BENCHMARK(BM_ReadClock);

// A span as the engine records one: two clock reads and Record().
void BM_RecordSpanWithClock(benchmark::State& state) {
  record::Recorder recorder;
  recorder.Start();
  for (auto _ : state) {
    const uint64_t t0 = record::Ticks();
    const uint64_t t1 = record::Ticks();
    recorder.RecordSpan(EventKind::kWork, 1, t0, t1, 7);
  }
  recorder.Stop();
}
BENCHMARK(BM_RecordSpanWithClock);

// A chained span (a worker's back-to-back elements): one clock read per event.
void BM_RecordChainedSpan(benchmark::State& state) {
  record::Recorder recorder;
  recorder.Start();
  uint64_t start = record::Ticks();
  for (auto _ : state) {
    const uint64_t end = record::Ticks();
    recorder.RecordSpan(EventKind::kWork, 1, start, end, 7);
    start = end;
  }
  recorder.Stop();
}
BENCHMARK(BM_RecordChainedSpan);

// A source's cheap calls back to back, as Iterator::GetNext records them (call_runs.h):
// most skip the clock and are counted into a run; one in every 4 us is timed. Per call;
// `timed` is the share of calls that read the clock.
void BM_RecordSourceCallInRun(benchmark::State& state) {
  record::Recorder recorder;
  recorder.Start();
  static const int kSource = 0;
  uint64_t element = 1;
  int64_t timed = 0;
  for (auto _ : state) {
    if (recorder.SourceCallUntimed(&kSource)) {
      benchmark::DoNotOptimize(recorder.EndUntimedSourceCall(1, element, 0));
    } else {
      ++timed;
      const uint64_t t0 = record::Ticks();
      benchmark::DoNotOptimize(element);
      const uint64_t t1 = record::Ticks();
      benchmark::DoNotOptimize(recorder.RecordSourceCall(&kSource, 1, t0, t1, element, 0));
    }
    ++element;
  }
  recorder.Stop();
  state.counters["timed"] =
      static_cast<double>(timed) / static_cast<double>(std::max<int64_t>(1, state.iterations()));
}
BENCHMARK(BM_RecordSourceCallInRun);

// The collector's capacity: one thread records as fast as it can for 0.5 s while the
// collector drains into the model (arg 0) or the model and a trace file (arg 1). Events/s
// stored, and the share dropped because the collector fell behind.
void BM_CollectorCapacity(benchmark::State& state) {
  double stored = 0, dropped = 0, seconds = 0;
  for (auto _ : state) {
    record::Recorder recorder;
    trace::Model model;
    recorder.AddSink(&model);
    std::unique_ptr<pstrace::TraceWriter> writer;
    if (state.range(0) == 1) {
      auto w = pstrace::TraceWriter::Create("/tmp/pipescope_collector_benchmark.pstrace",
                                            pstrace::TraceHeader{});
      if (!w.ok()) {
        state.SkipWithError("cannot create the file");
        return;
      }
      writer = std::move(w).value();
      recorder.AddSink(writer.get());
    }
    recorder.Start();
    const int64_t start = record::NowNs();
    uint64_t i = 0;
    while (record::NowNs() - start < 500'000'000) {
      for (int k = 0; k < 64; ++k, ++i) {
        const uint64_t t = record::Ticks();
        recorder.RecordSpan(EventKind::kWork, 1, t, t + 100, i + 1);
      }
    }
    seconds += static_cast<double>(record::NowNs() - start) / 1e9;
    recorder.Stop();
    stored += static_cast<double>(model.event_count());
    dropped += static_cast<double>(recorder.dropped());
  }
  state.counters["stored_per_s"] = stored / seconds;
  state.counters["dropped_share"] = dropped / (stored + dropped);
}
BENCHMARK(BM_CollectorCapacity)
    ->ArgName("file")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

// ---- a real recording, made once: the overhead pipeline for two seconds

struct Recording {
  std::string path = "/tmp/pipescope_trace_benchmark.pstrace";
  uint64_t bytes = 0;
  uint64_t events = 0;
};

const Recording& OverheadRecording() {
  static const Recording recording = [] {
    Recording r;
    auto spec =
        engine::LoadSpecFile(std::string(PIPESCOPE_RESOURCES) + "/pipelines/overhead.pbtxt");
    if (!spec.ok()) return r;
    session::RecordedRunOptions options;
    options.trace_path = r.path;
    options.run.duration_ns = 2'000'000'000;
    auto run = session::RunRecorded(*spec, options);
    if (!run.ok() || !run->model) return r;
    r.bytes = run->trace_file_bytes;
    r.events = run->model->event_count();
    return r;
  }();
  return recording;
}

void BM_LoadTrace(benchmark::State& state) {
  const Recording& r = OverheadRecording();
  if (r.events == 0) {
    state.SkipWithError("the recording failed");
    return;
  }
  size_t model_bytes = 0, events = 0;
  for (auto _ : state) {
    auto loaded = pstrace::ReadTraceFile(r.path);
    if (!loaded.ok()) {
      state.SkipWithError(loaded.status().message().c_str());
      return;
    }
    events = loaded->model->event_count();
    model_bytes = loaded->model->memory_bytes();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
  state.counters["events"] = static_cast<double>(events);
  state.counters["file_bytes_per_event"] =
      static_cast<double>(r.bytes) / static_cast<double>(events);
  state.counters["model_bytes_per_event"] =
      static_cast<double>(model_bytes) / static_cast<double>(events);
}
BENCHMARK(BM_LoadTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

// A snapshot of the same recording's model (Model::Snapshot): how long a live run's lock is
// held to take the copy its advice is worked out on.
void BM_SnapshotModel(benchmark::State& state) {
  const Recording& r = OverheadRecording();
  auto loaded =
      r.events > 0
          ? pstrace::ReadTraceFile(r.path)
          : engine::Result<pstrace::LoadedTrace>(engine::InvalidArgument("the recording failed"));
  if (!loaded.ok()) {
    state.SkipWithError(loaded.status().message().c_str());
    return;
  }
  const trace::Model& model = *loaded->model;
  for (auto _ : state) {
    auto copy = model.Snapshot();
    benchmark::DoNotOptimize(copy->event_count());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * model.event_count()));
  state.counters["events"] = static_cast<double>(model.event_count());
}
BENCHMARK(BM_SnapshotModel)->Unit(benchmark::kMillisecond)->UseRealTime();

// Export of the same recording: Chrome JSON (0), gzipped Chrome JSON (1), Perfetto (2).
void BM_ExportTrace(benchmark::State& state) {
  const Recording& r = OverheadRecording();
  auto loaded = pstrace::ReadTraceFile(r.path);
  if (!loaded.ok()) {
    state.SkipWithError("the recording failed");
    return;
  }
  const char* names[] = {"/tmp/pipescope_bench_export.json", "/tmp/pipescope_bench_export.json.gz",
                         "/tmp/pipescope_bench_export.perfetto-trace"};
  const std::string path = names[state.range(0)];
  for (auto _ : state) {
    const auto status = session::WriteTraceFile(*loaded->model, path);
    if (!status.ok()) {
      state.SkipWithError(status.message().c_str());
      return;
    }
  }
  std::ifstream written(path, std::ios::binary | std::ios::ate);
  const auto bytes = static_cast<double>(written.tellg());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * loaded->model->event_count()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["file_bytes_per_event"] =
      bytes / static_cast<double>(loaded->model->event_count());
  std::remove(path.c_str());
}
BENCHMARK(BM_ExportTrace)->DenseRange(0, 2)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- import of a PyTorch profiler trace: steps of 10 ms, each with a DataLoader wait,
// 40 CPU ops, 20 kernels and a copy (written once, ~120 MB)

const std::string& PyTorchLikeTrace() {
  static const std::string path = [] {
    std::string p = "/tmp/pipescope_bench_pytorch.json";
    std::ofstream out(p);
    out << std::fixed << std::setprecision(3);  // epoch microseconds, as PyTorch writes them
    out << "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    std::mt19937 rng(7);
    bool first = true;
    auto event = [&](const char* cat, const std::string& name, int pid, int tid, double ts,
                     double dur) {
      out << (first ? "" : ",\n") << "{\"ph\": \"X\", \"cat\": \"" << cat << "\", \"name\": \""
          << name << "\", \"pid\": " << pid << ", \"tid\": " << tid << ", \"ts\": " << ts
          << ", \"dur\": " << dur << ", \"args\": {\"External id\": " << rng() % 100000
          << ", \"Sequence number\": " << rng() % 1000 << "}}";
      first = false;
    };
    for (int step = 0; step < 6000; ++step) {
      const double t0 = 1.7e15 + step * 10000.0;
      event("user_annotation", "ProfilerStep#" + std::to_string(step), 4242, 4242, t0, 10000);
      event("user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
            4242, 4242, t0 + 5, 3000);
      for (int op = 0; op < 40; ++op)
        event("cpu_op", "aten::linear", 4242, 4242, t0 + 3010 + op * 150, 120);
      event("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, t0 + 3020, 200);
      for (int k = 0; k < 20; ++k)
        event("kernel", "ampere_sgemm_128x64_tn", 0, 7, t0 + 3300 + k * 330, 300);
    }
    out << "\n]}\n";
    return p;
  }();
  return path;
}

// Imports `path` once an iteration and reports the JSON's size, the events and the model's
// bytes per event (columns, names, arguments' text and flows together). Returns the last
// import (no model if it failed).
trace::ImportedTrace ImportEachIteration(benchmark::State& state, const std::string& path) {
  trace::ImportedTrace last;
  for (auto _ : state) {
    auto imported = trace::ImportChromeTrace(path);
    if (!imported.ok()) {
      state.SkipWithError(imported.status().message().c_str());
      return {};
    }
    last = std::move(imported).value();
  }
  const auto events = static_cast<double>(last.model->event_count());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * last.json_bytes));
  state.counters["json_MB"] = static_cast<double>(last.json_bytes) / 1e6;
  state.counters["events"] = events;
  state.counters["model_B_per_event"] =
      events > 0 ? static_cast<double>(last.model->memory_bytes()) / events : 0;
  return last;
}

void BM_ImportChromeJson(benchmark::State& state) {
  const trace::ImportedTrace last = ImportEachIteration(state, PyTorchLikeTrace());
  if (last.model)
    state.counters["input_wait"] = trace::SummarizeFramework(*last.model).input_wait_fraction;
}
BENCHMARK(BM_ImportChromeJson)->Unit(benchmark::kMillisecond)->UseRealTime();

// A real trace recorded by others (tests/trace/data/real: rank 3 of an 8-GPU job, 34.8 MB
// of pretty-printed JSON in 1.8 MB of gzip): gunzip, parse and map, names, depths,
// arguments and flows kept.
void BM_ImportRealTrace(benchmark::State& state) {
  ImportEachIteration(
      state, std::string(PIPESCOPE_TEST_DATA) + "/real/hta_trace_diff_control_rank3.json.gz");
}
BENCHMARK(BM_ImportRealTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

std::string RealTracePath() {
  return std::string(PIPESCOPE_TEST_DATA) + "/real/hta_trace_diff_control_rank3.json.gz";
}

// The real trace's gunzip alone: what reading a .json.gz costs before any parsing.
void BM_GunzipRealTrace(benchmark::State& state) {
  uint64_t bytes = 0;
  for (auto _ : state) {
    auto text = trace::ReadJsonFile(RealTracePath(), uint64_t{4} << 30);
    if (!text.ok()) {
      state.SkipWithError(text.status().message().c_str());
      return;
    }
    bytes = text->size;
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_GunzipRealTrace)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same trace as plain JSON (gunzipped once to /tmp, read from the page cache): the
// import's own rate, gunzip apart.
void BM_ImportRealTraceJson(benchmark::State& state) {
  static const std::string path = [] {
    auto text = trace::ReadJsonFile(RealTracePath(), uint64_t{4} << 30);
    std::string p = "/tmp/pipescope_bench_real_trace.json";
    if (text.ok())
      std::ofstream(p, std::ios::binary)
          .write(text->data, static_cast<std::streamsize>(text->size));
    return p;
  }();
  ImportEachIteration(state, path);
}
BENCHMARK(BM_ImportRealTraceJson)->Unit(benchmark::kMillisecond)->UseRealTime();

// ---- end to end: overhead.pbtxt with recording off (0), into the model (1), and into the
// model and a trace file (2). Run with --benchmark_repetitions and
// --benchmark_enable_random_interleaving so the three share the machine's noise.

void BM_EndToEnd(benchmark::State& state) {
  auto spec = engine::LoadSpecFile(std::string(PIPESCOPE_RESOURCES) + "/pipelines/overhead.pbtxt");
  if (!spec.ok()) {
    state.SkipWithError("overhead.pbtxt does not load");
    return;
  }
  double elements = 0, seconds = 0;
  for (auto _ : state) {
    session::RecordedRunOptions options;
    options.record = state.range(0) > 0;
    if (state.range(0) > 1) options.trace_path = "/tmp/pipescope_overhead_benchmark.pstrace";
    options.run.duration_ns = 1'000'000'000;
    auto run = session::RunRecorded(*spec, options);
    if (!run.ok() || !run->run_status.ok()) {
      state.SkipWithError("the run failed");
      return;
    }
    elements += static_cast<double>(run->summary.elements);
    seconds += run->summary.duration_s;
  }
  state.counters["elements_per_s"] = elements / seconds;
}
BENCHMARK(BM_EndToEnd)
    ->ArgName("recording")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(2)
    ->Unit(benchmark::kSecond);

// ---- sinks: what the collector spends per event

std::vector<record::TraceEvent> WorkerLikeEvents(size_t n) {
  std::vector<record::TraceEvent> events(n);
  std::mt19937_64 rng(1);
  int64_t t = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t gap = 50 + static_cast<int64_t>(rng() % 200);
    const int64_t d = 800 + static_cast<int64_t>(rng() % 400);
    events[i] = {t + gap, t + gap + d, i + 1, 0, 3, 2, EventKind::kWork, 0};
    t += gap + d;
  }
  return events;
}

void BM_ModelConsume(benchmark::State& state) {
  record::TraceBatch batch;
  batch.events = WorkerLikeEvents(65536);
  for (auto _ : state) {
    trace::Model model;
    model.Consume(batch, false);
    benchmark::DoNotOptimize(model.event_count());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch.events.size()));
}
BENCHMARK(BM_ModelConsume);

void BM_WriterConsume(benchmark::State& state) {
  record::TraceBatch batch;
  batch.events = WorkerLikeEvents(65536);
  pstrace::TraceHeader header;
  for (auto _ : state) {
    auto writer = pstrace::TraceWriter::Create("/tmp/pipescope_writer_benchmark.pstrace", header);
    if (!writer.ok()) {
      state.SkipWithError("cannot create the file");
      return;
    }
    (*writer)->Consume(batch, true);
    state.counters["file_bytes_per_event"] =
        static_cast<double>((*writer)->bytes_written()) / static_cast<double>(batch.events.size());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch.events.size()));
}
BENCHMARK(BM_WriterConsume);

// ---- the level-of-detail query: 10 M events, a 2,000-pixel view

const trace::Track& TenMillionEventTrack() {
  static const trace::Track* track = [] {
    auto* t = new trace::Track({EventKind::kWork, 1, 1});
    std::mt19937_64 rng(2);
    int64_t now = 0;
    for (uint64_t i = 0; i < 10'000'000; ++i) {
      const int64_t gap = static_cast<int64_t>(rng() % 500);
      const int64_t d = 200 + static_cast<int64_t>(rng() % 1500);
      t->Append(now + gap, now + gap + d, i + 1, 0);
      now += gap + d;
    }
    return t;
  }();
  return *track;
}

void BM_SummarizeTrack(benchmark::State& state) {
  const trace::Track& track = TenMillionEventTrack();
  const int64_t span = track.last_end() - track.first_start();
  // arg: the share of the trace in view, in thousandths (1000: all of it)
  const int64_t width = span * state.range(0) / 1000;
  const int64_t t0 = track.first_start() + (span - width) / 2;
  std::vector<trace::Track::Bucket> buckets;
  for (auto _ : state) {
    track.Summarize(t0, t0 + width, 2000, buckets);
    benchmark::DoNotOptimize(buckets.data());
  }
  state.counters["events_in_view"] =
      static_cast<double>(track.FirstStartingAtOrAfter(t0 + width) - track.FirstEndingAfter(t0));
}
BENCHMARK(BM_SummarizeTrack)
    ->ArgName("view_permille")
    ->Arg(1000)
    ->Arg(100)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

// ---- fresh memory: what building a trace pays to fault its pages in

// Writes one byte per 4 KiB page of 32 MiB of fresh memory (mmap'd each iteration), the
// pages faulted in as they are written (arg 0) or by record::PopulatePagesForWrite 64 KiB
// ahead of the writes, as the trace model's columns and the simulator's batches do
// (arg 1). Counter per_page: the time to bring in one page.
void BM_FaultInPages(benchmark::State& state) {
  constexpr size_t kBytes = size_t{32} << 20;
  constexpr size_t kPage = 4096;
  constexpr size_t kAhead = 64 * 1024;
  const bool populate = state.range(0) == 1;
  for (auto _ : state) {
    void* region =
        mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      return;
    }
    auto* bytes = static_cast<char*>(region);
    for (size_t offset = 0; offset < kBytes; offset += kPage) {
      if (populate && offset % kAhead == 0) record::PopulatePagesForWrite(bytes + offset, kAhead);
      bytes[offset] = 1;
    }
    benchmark::DoNotOptimize(bytes[kBytes / 2]);
    state.PauseTiming();
    munmap(region, kBytes);
    state.ResumeTiming();
  }
  state.counters["per_page"] = benchmark::Counter(
      static_cast<double>(kBytes) / static_cast<double>(kPage),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_FaultInPages)->ArgName("populate")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pipescope

BENCHMARK_MAIN();
