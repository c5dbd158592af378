// Importing profiler traces: PyTorch's and TensorFlow's Chrome JSON (written here in their
// formats: tests/trace/data) become steps, input waits, ops and device activity; the
// report's figures and verdicts follow the framework's terms; bare-array Chrome traces,
// begin/end pairs, gzip and a cut-off file open; bad input is an error naming the file and
// the byte, never a crash.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "instrumentation/trace/device_gaps.h"
#include "instrumentation/trace/import/chrome_trace_import.h"
#include "instrumentation/trace/import/framework_report.h"
#include "instrumentation/trace/import/host_merge.h"
#include "instrumentation/trace/import/json_brackets.h"
#include "instrumentation/trace/import/json_file.h"
#include "instrumentation/trace/import/tf_iterator_paths.h"

namespace pipescope::trace {
namespace {

std::string Data(const std::string& name) { return std::string(PIPESCOPE_TEST_DATA) + "/" + name; }

ImportedTrace Import(const std::string& name) {
  auto imported = ImportChromeTrace(Data(name));
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  return imported.ok() ? std::move(imported).value() : ImportedTrace{};
}

std::string Text(const std::string& name) {
  std::ifstream in(Data(name));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(TraceImportTest, PyTorchStepsDataLoaderWaitsAndGpuActivity) {
  for (const std::string name : {"pytorch_input_bound.json", "pytorch_input_bound.json.gz"}) {
    const ImportedTrace t = Import(name);
    ASSERT_NE(t.model, nullptr);
    EXPECT_EQ(t.framework, "pytorch");
    EXPECT_EQ(t.model->run_info().imported_from, "pytorch");
    EXPECT_EQ(t.model->run_info().pipeline_name, "pytorch_input_bound");
    const FrameworkSummary s = SummarizeFramework(*t.model);
    EXPECT_EQ(s.steps, 4);
    EXPECT_NEAR(s.step_time_s, 0.040, 1e-9);
    EXPECT_NEAR(s.input_wait_fraction, 0.6, 1e-6) << "6 ms of each 10 ms step in __next__";
    EXPECT_TRUE(s.has_device_activity);
    EXPECT_NEAR(s.device_busy_fraction, 0.35, 1e-6) << "a 0.4 ms copy and a 3.1 ms kernel per step";
    EXPECT_TRUE(s.input_bound);
    EXPECT_NE(s.verdict.find("DataLoader"), std::string::npos) << s.verdict;
    EXPECT_NE(s.verdict.find("worker processes do not keep up: raise num_workers"),
              std::string::npos)
        << "a _MultiProcessingDataLoaderIter waits for its workers: " << s.verdict;
    EXPECT_NE(s.verdict.find("60%"), std::string::npos) << s.verdict;
    EXPECT_EQ(t.model->flows().size(), 4u) << "each step's launch-to-kernel arrow is kept";
  }
}

// An asynchronous GPU: each step's 7 ms kernel runs on into the next step's 4 ms DataLoader
// wait, so only the rest of that wait leaves the device idle. Expected totals from the raw
// JSON (Python, decimal): 4000 + 2 x (4000 - 1590) = 8820 us of 12000 us of waits.
TEST(TraceImportTest, OnAnAsynchronousDeviceOnlyWaitsWhileItIdlesAreRed) {
  const ImportedTrace t = Import("pytorch_async_overlap.json");
  ASSERT_NE(t.model, nullptr);
  const std::vector<Interval> idle = WaitsWhileDeviceIdle(*t.model);
  EXPECT_EQ(Total(idle), 8'820'000);
  EXPECT_EQ(idle.size(), 3u);
  for (const Interval& i : idle) {  // none overlaps a kernel, span by span
    for (const Track* k : DeviceWorkTracks(*t.model)) {
      for (size_t j = 0; j < k->size(); ++j)
        EXPECT_TRUE(i.second <= k->start(j) || k->end(j) <= i.first) << i.first << ".." << i.second;
    }
  }
  // No overlap: every wait counts (6 ms of each of 4 steps); no device records: every wait.
  EXPECT_EQ(Total(WaitsWhileDeviceIdle(*Import("pytorch_input_bound.json").model)), 24'000'000);
  const ImportedTrace tf = Import("tensorflow_input_bound.json");
  EXPECT_TRUE(DeviceWorkTracks(*tf.model).empty());
  EXPECT_EQ(Total(WaitsWhileDeviceIdle(*tf.model)),
            Total(Union(tf.model->TracksOf(record::EventKind::kInputWait, record::kConsumerOp), 0,
                        tf.model->duration_ns())));
  EXPECT_GT(Total(WaitsWhileDeviceIdle(*tf.model)), 0);
}

TEST(TraceImportTest, APyTorchTraceThatIsNotInputBoundSaysSo) {
  const ImportedTrace t = Import("pytorch_compute_bound.json");
  const FrameworkSummary s = SummarizeFramework(*t.model);
  EXPECT_NEAR(s.input_wait_fraction, 0.04, 1e-6);
  EXPECT_NEAR(s.device_busy_fraction, 0.91, 1e-6);
  EXPECT_FALSE(s.input_bound);
  EXPECT_EQ(s.verdict.rfind("Not input-bound", 0), 0u) << s.verdict;
  EXPECT_NE(s.verdict.find("The device is the limit"), std::string::npos)
      << "busy 91% of step time: " << s.verdict;
}

// HTA's trace of a job whose loop records no DataLoader __next__: the input's share is not
// measured, which the verdict says rather than a wait of 0%; the device, busy 97% of step
// time, is the limit.
TEST(TraceImportTest, APyTorchTraceWithoutDataLoaderSpansSaysItsInputIsNotMeasured) {
  const ImportedTrace t = Import("real/hta_ns_resolution_rank-0.pt.trace.json.gz");
  const FrameworkSummary s = SummarizeFramework(*t.model);
  EXPECT_EQ(s.steps, 5);
  EXPECT_NE(s.verdict.find("records no DataLoader __next__"), std::string::npos) << s.verdict;
  EXPECT_EQ(s.verdict.find("takes 0%"), std::string::npos) << s.verdict;
  EXPECT_NE(s.verdict.find("The device is the limit"), std::string::npos) << s.verdict;
}

// The ops of a TensorFlow trace's iterators, in pipeline order.
std::vector<std::string> TfDataOps(const Model& m) {
  std::vector<std::string> ops;
  for (const auto* stage : m.StagesInOrder())
    if (stage->kind == "tf.data") ops.push_back(stage->name);
  return ops;
}

TEST(TraceImportTest, TensorFlowIteratorsBecomeOpsAndTheHeaviestIsNamed) {
  const ImportedTrace t = Import("tensorflow_input_bound.json");
  EXPECT_EQ(t.framework, "tensorflow");
  const Model& m = *t.model;
  // The iterator paths are the pipeline, the root last; each pulls from its child.
  EXPECT_EQ(TfDataOps(m),
            (std::vector<std::string>{"TFRecord", "ParallelMapV2", "Prefetch", "Root"}));
  EXPECT_EQ(m.LastStage()->name, "Root");
  EXPECT_EQ(m.Stage(static_cast<uint16_t>(m.StageNamed("Prefetch")->input))->name, "ParallelMapV2");
  const FrameworkSummary s = SummarizeFramework(m);
  EXPECT_EQ(s.steps, 4);
  EXPECT_NEAR(s.input_wait_fraction, 0.5, 1e-6) << "Iterator::Root takes 5 ms of each step";
  EXPECT_FALSE(s.has_device_activity);
  EXPECT_EQ(s.dominant_op, "ParallelMapV2") << "7 ms of own work per call, without TFRecord's 1 ms";
  // Prefetch's 4.98 ms a step on the loop's thread are waits while ParallelMapV2's calls run
  // on their threads: not its own work.
  EXPECT_NEAR(s.dominant_op_share, 56000.0 / (4 * (20 + 0 + 14000 + 2000)), 1e-6);
  EXPECT_NE(s.verdict.find("ParallelMapV2"), std::string::npos) << s.verdict;
  EXPECT_NE(s.verdict.find("AUTOTUNE"), std::string::npos) << s.verdict;
  ASSERT_EQ(m.markers().size(), 1u);
  EXPECT_EQ(m.markers()[0].text, "checkpoint");
}

// TensorBoard's trace viewer (xprof's JSON export) names an iterator's span by its last part
// ("Iterator::BatchV2") and keeps the path in args.long_name; a repeat's epochs are parts of
// their inputs' paths ("ForeverRepeat[1]::TFRecord"). The ops are still the pipeline's, each
// once, and only the root's calls are the training loop's wait: 7 ms of each 10 ms step
// (tensorflow_trace_viewer.json: 4 steps of 10 ms, Iterator::Root 7 ms at each step's start).
// The op that does the most own work is the map, whose function runs outside any iterator
// span, not the prefetch that waits for the batches (tf.data's bottleneck analysis).
// A step's own times: Root 7 - 6.98 ms; Prefetch 6.98 ms less the 6.491 ms BatchV2 works on
// the prefetch thread meanwhile; BatchV2 8 ms less four 1.5 ms calls of the map; the map's
// four 1.5 ms calls less the 0.1 ms of each that its input (the repeat, on the map's thread)
// covers; the repeat 0.4 - 0.3 ms and the read 0.3 ms, four times each.
TEST(TraceImportTest, TheTraceViewersIteratorNamesAreReadByTheirLongName) {
  const ImportedTrace t = Import("tensorflow_trace_viewer.json");
  EXPECT_EQ(t.framework, "tensorflow");
  const Model& m = *t.model;
  EXPECT_EQ(TfDataOps(m), (std::vector<std::string>{"TFRecord", "ForeverRepeat", "ParallelMapV2",
                                                    "BatchV2", "Prefetch", "Root"}))
      << "one op each, whatever the epoch";
  const auto input_of = [&](const char* name) {
    const record::StageDef* s = m.StageNamed(name);
    return s && s->input >= 0 ? m.Stage(static_cast<uint16_t>(s->input))->name : std::string();
  };
  EXPECT_EQ(input_of("Root"), "Prefetch");
  EXPECT_EQ(input_of("BatchV2"), "ParallelMapV2");
  EXPECT_EQ(input_of("ParallelMapV2"), "ForeverRepeat");
  EXPECT_EQ(input_of("ForeverRepeat"), "TFRecord");
  const auto& reads = m.TracksOf(record::EventKind::kCall, m.StageNamed("TFRecord")->id);
  size_t read_calls = 0;
  for (const Track* track : reads) read_calls += track->size();
  EXPECT_EQ(read_calls, 16u) << "both epochs' reads";
  const auto& batches = m.TracksOf(record::EventKind::kCall, m.StageNamed("BatchV2")->id);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(m.SpanName(*batches[0], 0), "Iterator::Root::Prefetch::BatchV2");
  EXPECT_EQ(batches[0]->value(0), 2'000'000u) << "8 ms less its four 1.5 ms calls of the map";
  const FrameworkSummary s = SummarizeFramework(m);
  EXPECT_EQ(s.steps, 4);
  EXPECT_NEAR(s.input_wait_fraction, 0.7, 1e-6) << "the root's calls alone are the wait";
  EXPECT_EQ(s.dominant_op, "ParallelMapV2");
  EXPECT_NEAR(s.dominant_op_share, 5600.0 / (20 + 489 + 2000 + 5600 + 400 + 1200), 1e-6);
}

// Paths as TensorFlow's errors print them ("... with iterator: Iterator::Root::...").
TEST(TraceImportTest, AnIteratorPathLosesItsRepeatsEpochsAndKeepsAZipsInputs) {
  EXPECT_EQ(OpPathOfIterator("Iterator::Root::Prefetch::BatchV2::ForeverRepeat[0]::ParallelMapV2::"
                             "Zip[1]::Shuffle::ParallelMapV2"),
            "Iterator::Root::Prefetch::BatchV2::ForeverRepeat::ParallelMapV2::Zip[1]::Shuffle::"
            "ParallelMapV2");
  EXPECT_EQ(OpPathOfIterator("Iterator::Root::Repeat[12]::Map"), "Iterator::Root::Repeat::Map");
  EXPECT_EQ(OpPathOfIterator("Iterator::Root::Prefetch::MapAndBatch"),
            "Iterator::Root::Prefetch::MapAndBatch");
  EXPECT_EQ(ConsumerOfIterator("Iterator::Root::Prefetch::MapAndBatch::Zip[1]::ShuffleAndRepeat"),
            "Iterator::Root::Prefetch::MapAndBatch::Zip");
  EXPECT_EQ(ConsumerOfIterator("Iterator::Root::Prefetch"), "Iterator::Root");
  EXPECT_EQ(ConsumerOfIterator("Iterator::Root"), "");
}

TEST(TraceImportTest, ABareArrayWithBeginEndPairsOpensAsGenericLanes) {
  const ImportedTrace t = Import("generic_array.json");
  EXPECT_EQ(t.framework, "chrome");
  const Model& m = *t.model;
  const record::StageDef* pid7 = m.StageNamed("pid 7");
  ASSERT_NE(pid7, nullptr) << "a generic op per process";
  EXPECT_EQ(m.StageNamed("pid 8")->kind, "imported");
  const auto& calls = m.TracksOf(record::EventKind::kCall, pid7->id);
  ASSERT_EQ(calls.size(), 2u) << "load and decode, paired from B/E, one nested in the other";
  EXPECT_EQ(calls[0]->key().depth, 0);
  EXPECT_EQ(m.SpanName(*calls[0], 0), "load");
  EXPECT_EQ(calls[0]->start(0), 0);
  EXPECT_EQ(calls[0]->end(0), 50'000);
  EXPECT_EQ(calls[0]->value(0), 30'000u) << "load's own time: 50 us less decode's 20 us";
  EXPECT_EQ(calls[1]->key().depth, 1);
  EXPECT_EQ(m.SpanName(*calls[1], 0), "decode");
  EXPECT_EQ(calls[1]->start(0), 10'000);
  EXPECT_EQ(calls[1]->end(0), 30'000) << "nested, not flattened to its parent's end";
  const record::StageDef* pid8 = m.StageNamed("pid 8");
  EXPECT_EQ(m.TracksOf(record::EventKind::kCall, pid8->id)[0]->start(0), 60'500)
      << "times written as strings";
  ASSERT_EQ(m.markers().size(), 1u);
  const FrameworkSummary s = SummarizeFramework(m);
  EXPECT_EQ(s.steps, 0);
  EXPECT_NE(s.verdict.find("ProfilerStep#N"), std::string::npos) << s.verdict;
  const record::StageDef* queue = m.StageNamed("pid 7: queue");
  ASSERT_NE(queue, nullptr) << "a counter lane per counter";
  EXPECT_EQ(queue->kind, "counter");
  const auto& levels = m.TracksOf(record::EventKind::kBufferLevel, queue->id);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_EQ(levels[0]->value(0), 3u);
  EXPECT_EQ(levels[0]->start(0), 20'000);
}

// Profilers write epoch microseconds with three decimals: 1.7e15 us is past what a double
// holds to the nanosecond (its step there is 0.25 us), so times are read as decimal text.
TEST(TraceImportTest, EpochMicrosecondsKeepEveryNanosecond) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1700000000000000.000, "dur": 0.001},
    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 1700000000000000.123, "dur": 2.5},
    {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": "1700000000000003.0015", "dur": 1e0}]})";
  auto t = ImportChromeTraceText(json, "epoch.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Model& m = *t->model;
  const record::StageDef* pid1 = m.StageNamed("pid 1");
  ASSERT_NE(pid1, nullptr);
  std::map<std::string, std::pair<int64_t, int64_t>> spans;  // name -> start, end
  for (const Track* track : m.TracksOf(record::EventKind::kCall, pid1->id)) {
    for (size_t i = 0; i < track->size(); ++i)
      spans[std::string(m.SpanName(*track, i))] = {track->start(i), track->end(i)};
  }
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans["a"].first, 0) << "the earliest event is time zero";
  EXPECT_EQ(m.run_info().clock.origin_unix_ns, 1'700'000'000'000'000'000);
  EXPECT_EQ(spans["b"].first - spans["a"].first, 123) << "not 0 or 256, as through a double";
  EXPECT_EQ(spans["b"].second - spans["b"].first, 2'500);
  EXPECT_EQ(spans["c"].first - spans["a"].first, 3'002) << "a time in a string, rounded half up";
  EXPECT_EQ(spans["c"].second - spans["c"].first, 1'000) << "an exponent";
}

TEST(TraceImportTest, ACutOffTraceKeepsTheEventsBeforeTheCut) {
  const std::string full = Text("pytorch_input_bound.json");
  const std::string cut = full.substr(0, full.size() * 2 / 3);
  auto t = ImportChromeTraceText(cut, "cut.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_FALSE(t->warnings.empty());
  EXPECT_NE(t->warnings[0].find("ends early"), std::string::npos) << t->warnings[0];
  EXPECT_GE(SummarizeFramework(*t->model).steps, 2);
}

TEST(TraceImportTest, BadInputIsAReadableError) {
  auto r = ImportChromeTraceText("{\"traceEvents\": 3}", "x.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x.json"), std::string::npos) << r.status().message();
  r = ImportChromeTraceText("not json at all", "y.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("y.json"), std::string::npos);
  r = ImportChromeTraceText("[1, 2]", "z.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("z.json at byte"), std::string::npos) << r.status().message();
  r = ImportChromeTraceText("\"text\"", "w.json");
  EXPECT_FALSE(r.ok());
  auto missing = ImportChromeTrace("/nonexistent/trace.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/trace.json"), std::string::npos);
  ImportOptions small;
  small.max_bytes = 100;
  auto big = ImportChromeTrace(Data("pytorch_input_bound.json"), small);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), engine::StatusCode::kResourceExhausted);
}

// ---- every generation's spelling, written here in each one (tests/trace/data/kineto_*)

TEST(TraceImportTest, PyTorch2021CapitalisedCategoriesAreDeviceWork) {
  const ImportedTrace t = Import("kineto_2021_capitalised.json");
  const FrameworkSummary s = SummarizeFramework(*t.model);
  EXPECT_EQ(s.steps, 2);
  EXPECT_NEAR(s.input_wait_fraction, 0.4, 1e-9) << "4 ms of each 10 ms step in __next__";
  EXPECT_NEAR(s.device_busy_fraction, (5000 + 500 + 40) / 10000.0, 1e-9)
      << "Kernel, Memcpy and Memset on the device, not CPU lanes";
  const auto& kernels = t.model->TracksOf(record::EventKind::kGpuKernel, record::kDeviceOp);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(t.model->SpanName(*kernels[0], 0), "implicit_convolve_sgemm");
  EXPECT_EQ(t.model->ThreadName(kernels[0]->key().thread), "GPU 0 / stream 7");
  EXPECT_EQ(t.model->flows().size(), 2u) << "the launch-to-kernel arrows";
  const Flow& f = t.model->flows()[0];
  EXPECT_EQ(t.model->SpanName(*t.model->tracks()[f.from.track], f.from.index), "cudaLaunchKernel");
  EXPECT_EQ(t.model->SpanName(*t.model->tracks()[f.to.track], f.to.index),
            "implicit_convolve_sgemm");
  // The copy keeps its arguments as written.
  const auto& copies = t.model->TracksOf(record::EventKind::kGpuMemcpy, record::kDeviceOp);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(t.model->args()[copies[0]->args(0)], "{\"bytes\":4096}");
}

TEST(TraceImportTest, DeviceSideCopiesOfStepsAreNotSteps) {
  const ImportedTrace t = Import("kineto_gpu_user_annotation_steps.json");
  const FrameworkSummary s = SummarizeFramework(*t.model);
  EXPECT_EQ(s.steps, 3) << "ProfilerStep#N on the GPU (gpu_user_annotation) is the same step";
  EXPECT_NEAR(s.device_busy_fraction, 0.5, 1e-9) << "the annotation is not device work";
}

TEST(TraceImportTest, RocmTracesUseKinetosCategoriesOnEveryStream) {
  const ImportedTrace t = Import("kineto_rocm.json");
  const FrameworkSummary s = SummarizeFramework(*t.model);
  EXPECT_EQ(s.steps, 2);
  EXPECT_NEAR(s.device_busy_fraction, 0.7, 1e-9) << "the union over both streams";
  EXPECT_EQ(t.model->TracksOf(record::EventKind::kGpuKernel, record::kDeviceOp).size(), 2u)
      << "a lane per stream";
}

TEST(TraceImportTest, TrailingMetadataWithBracketsIsNotDamage) {
  for (const size_t piece : {size_t{0}, size_t{997}}) {
    ImportOptions options;
    if (piece > 0) {  // the chunked path, which looks for the array's end
      options.chunk_bytes = piece;
      options.chunked_above = 1;
    }
    auto t = ImportChromeTrace(Data("kineto_trailing_metadata.json"), options);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_TRUE(t->warnings.empty()) << t->warnings[0];
    EXPECT_EQ(t->model->event_count(), 200u);
  }
}

// Writes `parts` as one gzip member each (gzip's "ab" mode starts a new member), then
// `tail` as it is.
std::string GzipMembers(const std::string& name, const std::vector<std::string>& parts,
                        const std::string& tail = "") {
  std::string path = ::testing::TempDir() + "/" + name;
  std::remove(path.c_str());
  for (const std::string& part : parts) {
    gzFile gz = gzopen(path.c_str(), "ab");
    EXPECT_NE(gz, nullptr);
    EXPECT_EQ(gzwrite(gz, part.data(), static_cast<unsigned>(part.size())),
              static_cast<int>(part.size()));
    gzclose(gz);
  }
  std::ofstream(path, std::ios::app | std::ios::binary) << tail;
  return path;
}

std::string Bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// gzip read whole (libdeflate) or as a stream (zlib) gives the same text: every member of a
// file of several (whichever is larger, the trailer giving only the last one's size), a
// writer's zero padding ignored; a cut-off file gives the text before the cut, a damaged
// one an error naming it, a text over the limit is refused.
TEST(TraceImportTest, GzipOfSeveralMembersDamagedOrTooLarge) {
  const std::string text = Text("pytorch_input_bound.json");
  const size_t third = text.size() / 3;
  for (const size_t split : {third, 2 * third}) {
    const std::string path =
        GzipMembers("members.json.gz", {text.substr(0, split), text.substr(split)});
    auto read = ReadJsonFile(path, uint64_t{1} << 30);
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(read->text(), text) << "split at " << split;
  }
  auto padded = ReadJsonFile(GzipMembers("padded.json.gz", {text}, std::string(100, '\0')),
                             uint64_t{1} << 30);
  ASSERT_TRUE(padded.ok()) << padded.status().message();
  EXPECT_EQ(padded->text(), text);

  const std::string whole = Bytes(GzipMembers("whole.json.gz", {text}));
  const std::string cut = ::testing::TempDir() + "/cut.json.gz";
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() / 2);
  // A file cut off while written: what decompresses is kept, and the events in it imported.
  auto cut_read = ReadJsonFile(cut, uint64_t{1} << 30);
  ASSERT_TRUE(cut_read.ok()) << cut_read.status().message();
  EXPECT_GT(cut_read->size, 0u);
  EXPECT_LT(cut_read->size, text.size());
  EXPECT_EQ(cut_read->text(), text.substr(0, cut_read->size));
  auto cut_import = ImportChromeTrace(cut);
  ASSERT_TRUE(cut_import.ok()) << cut_import.status().message();
  EXPECT_GT(cut_import->model->event_count(), 0u);
  ASSERT_FALSE(cut_import->warnings.empty());
  EXPECT_NE(cut_import->warnings[0].find("the file ends early"), std::string::npos)
      << cut_import->warnings[0];
  std::string flipped = whole;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x55);
  const std::string damaged = ::testing::TempDir() + "/damaged.json.gz";
  std::ofstream(damaged, std::ios::binary) << flipped;
  auto damaged_read = ReadJsonFile(damaged, uint64_t{1} << 30);
  ASSERT_FALSE(damaged_read.ok());
  EXPECT_EQ(damaged_read.status().code(), engine::StatusCode::kDataLoss)
      << damaged_read.status().message();
  EXPECT_NE(damaged_read.status().message().find("damaged gzip data"), std::string::npos)
      << damaged_read.status().message();

  auto over = ReadJsonFile(GzipMembers("over.json.gz", {text, text}), text.size() + 10);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), engine::StatusCode::kResourceExhausted)
      << over.status().message();
}

TEST(TraceImportTest, EachBadInputSaysWhatIsWrong) {
  // A byte-order mark is skipped.
  auto bom = ImportChromeTraceText("\xEF\xBB\xBF" + Text("pytorch_input_bound.json"), "bom.json");
  ASSERT_TRUE(bom.ok()) << bom.status().message();
  EXPECT_EQ(SummarizeFramework(*bom->model).steps, 4);
  // Text that is not JSON (a log file, gzipped) says so, with what it starts with.
  const std::string log = ::testing::TempDir() + "/log.json.gz";
  gzFile gz = gzopen(log.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  gzputs(gz, "INFO:2024-04-03 18:51:36 1102:1102 CuptiActivityProfiler.cpp:1141] Traces\n");
  gzclose(gz);
  auto text = ImportChromeTrace(log);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("not JSON: it starts with \"INFO:2024"), std::string::npos)
      << text.status().message();
  EXPECT_EQ(text.status().message().find("ends early"), std::string::npos);
  // Text after a complete document: the events are kept, and the rest is reported.
  auto trailing =
      ImportChromeTraceText(Text("pytorch_input_bound.json") + "\n<html>oops", "t.json");
  ASSERT_TRUE(trailing.ok()) << trailing.status().message();
  ASSERT_FALSE(trailing->warnings.empty());
  EXPECT_NE(trailing->warnings.back().find("after the end of the JSON document (\"<html>oops"),
            std::string::npos)
      << trailing->warnings.back();
  EXPECT_EQ(SummarizeFramework(*trailing->model).steps, 4);
  auto utf16 = ImportChromeTraceText("\xFF\xFE[\0]\0", "u.json");
  ASSERT_FALSE(utf16.ok());
  EXPECT_NE(utf16.status().message().find("UTF-16"), std::string::npos);
}

// Over 16 MB a trace is parsed in chunks split between events; names that look like a
// split ("},{") must not cut an event, and a cut-off large file keeps what came before.
std::string LargeTrace(size_t events) {
  std::string json =
      "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0}], \"traceEvents\": [\n";
  for (size_t i = 0; i < events; ++i) {
    if (i > 0) json += ",\n";
    json += "{\"ph\": \"X\", \"name\": \"op},{\\\"trick\\\": " + std::to_string(i % 7) +
            "\", \"pid\": 1, \"tid\": 2, \"ts\": " + std::to_string(1.7e12 + 10.0 * i) +
            ", \"dur\": 5, \"args\": {\"a\": [1, {\"b\": \"}, {\"}]}}";
  }
  return json + "\n], \"traceName\": \"x[1]\"}\n";
}

TEST(TraceImportTest, ALargeTraceIsReadInChunksWithoutLosingAnEvent) {
  const size_t n = 200'000;  // ~28 MB
  const std::string json = LargeTrace(n);
  ASSERT_GT(json.size(), size_t{16} << 20);
  auto t = ImportChromeTraceText(json, "large.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->warnings.empty()) << t->warnings[0];
  EXPECT_EQ(t->model->event_count(), n);
  const record::StageDef* pid1 = t->model->StageNamed("pid 1");
  ASSERT_NE(pid1, nullptr);
  const Track& calls = *t->model->TracksOf(record::EventKind::kCall, pid1->id)[0];
  EXPECT_EQ(calls.start(n - 1), static_cast<int64_t>(10'000 * (n - 1)));

  auto cut = ImportChromeTraceText(json.substr(0, json.size() * 3 / 4), "large_cut.json");
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  ASSERT_FALSE(cut->warnings.empty());
  EXPECT_NE(cut->warnings[0].find("ends early"), std::string::npos) << cut->warnings[0];
  EXPECT_GT(cut->model->event_count(), n * 7 / 10);
  EXPECT_LT(cut->model->event_count(), n * 8 / 10);
}

TEST(TraceImportTest, SmallPiecesGiveTheSameEventsAsOnePiece) {
  for (const std::string name :
       {"pytorch_input_bound.json", "tensorflow_input_bound.json", "generic_array.json"}) {
    const std::string json = Text(name);
    auto whole = ImportChromeTraceText(json, name);
    ImportOptions pieces;
    pieces.chunked_above = 1;
    pieces.chunk_bytes = 97;
    auto chunked = ImportChromeTraceText(json, name, pieces);
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    ASSERT_TRUE(chunked.ok()) << chunked.status().message();
    EXPECT_EQ(chunked->model->event_count(), whole->model->event_count()) << name;
    EXPECT_EQ(SummarizeFramework(*chunked->model).verdict,
              SummarizeFramework(*whole->model).verdict);
  }
}

// Pieces split wherever "}, {" appears, also inside events: arguments holding arrays of
// objects, strings holding "}, {", nested arrays. Every piece size gives the events, names
// and arguments of the whole-document parse.
TEST(TraceImportTest, SplitsInsideEventsNeverLoseOrShortenOne) {
  std::string json = "{\"traceEvents\": [";
  for (int i = 0; i < 60; ++i) {
    if (i > 0) json += ", ";
    json += "{\"ph\": \"X\", \"name\": \"op}, {" + std::to_string(i) +
            "\", \"pid\": 1, \"tid\": " + std::to_string(i % 3) +
            ", \"ts\": " + std::to_string(i * 10) +
            ", \"dur\": 4, \"args\": {\"grid\": [{\"x\": 1}, {\"y\": [{}, {}]}], "
            "\"s\": \"a}, {b\\\"}, {\"}, \"stack\": [{\"f\": 1}, {\"f\": 2}]}";
  }
  json += "], \"INFO\": [\"x]\", {\"a\": 1}, {\"b\": 2}]}";
  auto whole = ImportChromeTraceText(json, "split.json");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_EQ(whole->model->event_count(), 60u);
  for (size_t piece = 5; piece < 700; piece += 7) {
    ImportOptions options;
    options.chunked_above = 1;
    options.chunk_bytes = piece;
    auto chunked = ImportChromeTraceText(json, "split.json", options);
    ASSERT_TRUE(chunked.ok()) << chunked.status().message();
    ASSERT_EQ(chunked->model->event_count(), 60u) << "piece " << piece;
    EXPECT_TRUE(chunked->warnings.empty()) << "piece " << piece << ": " << chunked->warnings[0];
    for (const auto& track : chunked->model->tracks()) {
      for (size_t i = 0; i < track->size(); ++i) {
        EXPECT_EQ(chunked->model->args()[track->args(i)].size(), whole->model->args()[1].size())
            << "piece " << piece << ": every event's arguments whole";
        EXPECT_EQ(chunked->model->SpanName(*track, i).substr(0, 5), "op}, ");
      }
    }
  }
}

// Each block-wise whole-events check (64 bytes at a time: AVX2) answers as the
// byte-wise one on random text made of JSON's brackets, quotes, backslashes and letters, of
// every length around the block size, on brackets that close below zero between events,
// and on real event text.
TEST(TraceImportTest, BlockWiseBracketChecksAgreeWithTheByteWiseOne) {
  const auto versions = WholeEventsBlockVersions();
  if (versions.empty()) GTEST_SKIP() << "this processor runs only the byte-wise check";
  for (const WholeEventsVersion& version : versions) {
    SCOPED_TRACE(version.name);
    std::mt19937 random(7);
    const std::string alphabet = "{}[]\"\"\"\\\\ab,: ";
    int whole = 0;
    for (int round = 0; round < 20'000; ++round) {
      std::string text(random() % 300, ' ');
      for (char& c : text) c = alphabet[random() % alphabet.size()];
      if (round % 3 == 0)
        text = "{\"a\": [" + text.substr(0, text.size() / 4) + "]}";  // nearer whole
      std::string padded = text + std::string(64, '\0');
      const std::string_view piece(padded.data(), text.size());
      ASSERT_EQ(version.check(piece), WholeEventsScalar(piece)) << text;
      whole += WholeEventsScalar(piece);
    }
    EXPECT_GT(whole, 100) << "some random texts balance";
    // Brackets that balance in count but close below zero between two events ("}{"), at
    // every place in a block: long strings leave a block few brackets to decide by.
    for (int a = 0; a < 140; ++a) {
      const std::string text = "{\"a\": \"" + std::string(a, 'x') + "\"} }{ {\"b\": \"" +
                               std::string(70, 'y') + "\"}" + std::string(64, '\0');
      const std::string_view piece(text.data(), text.size() - 64);
      ASSERT_FALSE(WholeEventsScalar(piece));
      ASSERT_FALSE(version.check(piece)) << "a close below zero at byte " << a + 10;
    }
    const std::string events = Text("kineto_trailing_metadata.json");
    for (size_t cut = 0; cut < 2000; cut += 13) {
      const std::string_view piece(events.data() + 40, events.size() - 40 - 64 - cut);
      ASSERT_EQ(version.check(piece), WholeEventsScalar(piece)) << cut;
    }
  }
}

// Two hosts of one job: host "b" started 5 ms after "a" on the shared clock; each keeps its
// lanes under its name, its figures, and the verdict names the one that waits most.
TEST(TraceImportTest, SeveralHostsLineUpOnTheirClocks) {
  std::string shifted = Text("pytorch_compute_bound.json");
  for (size_t at = 0; (at = shifted.find("\"ts\": 10", at)) != std::string::npos; at += 6)
    shifted.replace(at + 6, 2, "15");  // 1,0xx,xxx us -> 1,5xx,xxx: 0.5 s later
  auto a = ImportChromeTrace(Data("pytorch_input_bound.json"));
  auto b = ImportChromeTraceText(shifted, "b.json");
  ASSERT_TRUE(a.ok() && b.ok());
  const MergedHosts merged = MergeHosts({{"a", std::move(a->model)}, {"b", std::move(b->model)}});
  EXPECT_TRUE(merged.warnings.empty());
  const Model& m = *merged.model;
  const record::StageDef* a_steps = m.StageNamed("a: steps");
  const record::StageDef* b_steps = m.StageNamed("b: steps");
  ASSERT_NE(a_steps, nullptr);
  ASSERT_NE(b_steps, nullptr);
  ASSERT_NE(m.StageNamed("b: input wait"), nullptr);
  ASSERT_NE(m.StageNamed("a: GPU"), nullptr);
  ASSERT_NE(m.StageNamed("a: python3"), nullptr) << "each host's own ops, under its name";
  const Track& sa = *m.TracksOf(record::EventKind::kCall, a_steps->id)[0];
  const Track& sb = *m.TracksOf(record::EventKind::kCall, b_steps->id)[0];
  ASSERT_EQ(sa.size(), 4u);
  ASSERT_EQ(sb.size(), 4u);
  EXPECT_EQ(sb.start(0) - sa.start(0), 500'000'000) << "aligned on the shared clock";
  ASSERT_EQ(merged.hosts.size(), 2u);
  EXPECT_NEAR(merged.hosts[0].second.input_wait_fraction, 0.6, 1e-6);
  EXPECT_NEAR(merged.hosts[1].second.input_wait_fraction, 0.04, 1e-6);
  EXPECT_EQ(merged.verdict.rfind("a waits most for input (60%", 0), 0u) << merged.verdict;
}

TEST(TraceImportTest, ProgressRunsToTheEndAndCancelStops) {
  std::vector<double> shares;
  ImportOptions options;
  options.progress = [&](double share) {
    shares.push_back(share);
    return true;
  };
  ASSERT_TRUE(ImportChromeTrace(Data("tensorflow_input_bound.json"), options).ok());
  ASSERT_FALSE(shares.empty());
  EXPECT_DOUBLE_EQ(shares.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(shares.begin(), shares.end()));
  options.progress = [](double) { return false; };
  EXPECT_EQ(ImportChromeTrace(Data("tensorflow_input_bound.json"), options).status().code(),
            engine::StatusCode::kCancelled);
}

}  // namespace
}  // namespace pipescope::trace
