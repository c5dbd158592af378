// The conformance suite every op passes (CONVENTIONS rule 4): output sequence (on the
// engine and on the simulator's clock), end of sequence, cancellation, and live knob
// changes that must not change the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <random>
#include <set>
#include <thread>

#include "engine/runtime/pipeline_builder.h"
#include "engine/runtime/stage_registry.h"
#include "engine/sim/sim_values.h"
#include "engine/sim/simulator.h"
#include "tests/engine/test_support.h"

namespace pipescope::engine {

// Reaches an op's own GetNext, past the end the Iterator wrapper remembers.
struct IteratorTestPeer {
  static Status GetNextInternal(Iterator& it, Element& out, bool& end) {
    return it.GetNextInternal(out, end);
  }
};

namespace {

using testing::Drain;
using testing::MakePipeline;
using testing::MakeRecordedPipeline;
using testing::Values;

struct OpCase {
  // A constructor rather than an aggregate: most cases leave the last two at their defaults.
  OpCase(std::string n, std::string o, std::vector<int64_t> e, bool ord = true,
         std::vector<std::string> knobs = {})
      : name(std::move(n)),
        ops(std::move(o)),
        expected(std::move(e)),
        ordered(ord),
        live_knobs(std::move(knobs)) {}
  std::string name;
  std::string ops;  // the spec's ops, applied to range(0, 10)
  std::vector<int64_t> expected;
  bool ordered = true;                  // false: compare as multisets (non-deterministic ops)
  std::vector<std::string> live_knobs;  // the op's own knobs that must not change the output
  // For the cancel test, which needs the consumer still running: the ops with a finite
  // count made endless (empty: `ops`, already endless over an endless source).
  std::string endless_ops;
};

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

// tf.data's documented interleave example: range(1, 6) interleaved over
// from_tensors(x).repeat(6) with cycle_length 2 and block_length 4.
const std::vector<int64_t> kInterleaveDoc = {1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3,
                                             3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5};

std::string SpecFor(const OpCase& c, int64_t stop) {
  // Interleave cases are written over range(1, 6), everything else over range(0, 10).
  const bool interleave = c.ops.find("interleave") != std::string::npos;
  return "source { range { start: " + std::string(interleave ? "1" : "0") +
         " stop: " + std::to_string(stop) + " } } " + c.ops;
}

OpCase WithEndlessOps(OpCase c, std::string endless_ops) {
  c.endless_ops = std::move(endless_ops);
  return c;
}

std::vector<OpCase> Cases() {
  std::vector<int64_t> ten(10);
  for (int i = 0; i < 10; ++i) ten[i] = i;
  std::vector<int64_t> twice = ten;
  twice.insert(twice.end(), ten.begin(), ten.end());
  const std::string il =
      "ops { name: \"il\" interleave { per_element { from_element {} } "
      "ops { repeat { count: 6 } } cycle_length: 2 block_length: 4 ";
  return {
      {"NoOps", "", ten},
      {"MapSequential", "ops { name: \"m\" map { fn { identity {} } } }", ten},
      {"MapParallel",
       "ops { name: \"m\" map { fn { identity {} } num_parallel_calls: 3 } }",
       ten,
       true,
       {"m.num_parallel_calls"}},
      {"MapParallelNondeterministic",
       "ops { name: \"m\" map { fn { identity {} } num_parallel_calls: 3 deterministic: false } }",
       ten,
       false,
       {"m.num_parallel_calls"}},
      {"MapAutotune",
       "ops { name: \"m\" map { fn { identity {} } num_parallel_calls: AUTOTUNE } }",
       ten,
       true,
       {"m.num_parallel_calls"}},
      {"Filter",
       "ops { filter { predicate { mod_equals { modulus: 2 remainder: 0 } } } }",
       {0, 2, 4, 6, 8}},
      {"Shuffle", "ops { shuffle { buffer_size: 4 seed: 1 } }", ten, false},
      {"BatchUnbatch", "ops { batch { batch_size: 3 } } ops { unbatch {} }", ten},
      {"Prefetch", "ops { name: \"p\" prefetch { buffer_size: 2 } }", ten, true, {"p.buffer_size"}},
      {"PrefetchPassThrough",
       "ops { name: \"p\" prefetch { buffer_size: 0 } }",
       ten,
       true,
       {"p.buffer_size"}},
      {"Shard", "ops { shard { num_shards: 3 index: 1 } }", {1, 4, 7}},
      {"Cache", "ops { cache {} }", ten},
      {"FlatMap", "ops { flat_map { per_element { from_element {} } } }", ten},
      {"Repeat", "ops { repeat { count: 2 } }", twice},
      {"CacheRepeat", "ops { cache {} } ops { repeat { count: 2 } }", twice},
      WithEndlessOps({"Take", "ops { take { count: 3 } }", {0, 1, 2}},
                     "ops { take { count: 1000000000000 } }"),
      {"TakeAll", "ops { take { count: -1 } }", ten},
      {"Skip", "ops { skip { count: 7 } }", {7, 8, 9}},
      {"InterleaveSync", il + "} }", kInterleaveDoc},
      {"InterleaveParallel",
       il + "num_parallel_calls: 2 } }",
       kInterleaveDoc,
       true,
       {"il.num_parallel_calls"}},
      {"InterleaveParallelNondeterministic",
       il + "num_parallel_calls: 2 deterministic: false } }",
       kInterleaveDoc,
       false,
       {"il.num_parallel_calls"}},
      {"PrefetchAfterParallelMap",
       "ops { name: \"m\" map { fn { identity {} } num_parallel_calls: 2 } } "
       "ops { name: \"p\" prefetch { buffer_size: 1 } }",
       ten,
       true,
       {"m.num_parallel_calls", "p.buffer_size"}},
  };
}

class OpConformance : public ::testing::TestWithParam<OpCase> {};

void ExpectSameOutput(const OpCase& c, std::vector<int64_t> got) {
  std::vector<int64_t> want = c.expected;
  if (!c.ordered) {
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
  }
  EXPECT_EQ(got, want);
}

TEST_P(OpConformance, ProducesTheDocumentedSequence) {
  const OpCase& c = GetParam();
  const bool interleave = c.ops.find("interleave") != std::string::npos;
  ExpectSameOutput(c, testing::DrainValues(SpecFor(c, interleave ? 6 : 10)));
}

// The same sequence on the simulator's clock: its elements carry no data, and their values
// are the engine's own rules replayed over the simulated run's lineage.
TEST_P(OpConformance, TheSimulatorGivesTheSameSequence) {
  const OpCase& c = GetParam();
  const bool interleave = c.ops.find("interleave") != std::string::npos;
  const spec::PipelineSpec spec =
      testing::Spec(SpecFor(c, interleave ? 6 : 10) + " train_step { step_time: \"1ms\" }");
  auto cost = sim::DefaultCostModel(spec, 4);
  ASSERT_TRUE(cost.ok()) << cost.status().message();
  trace::Model model;
  sim::SimulationOptions options;
  options.duration_s = 60;
  options.sinks = {&model};
  auto result = sim::Simulate(spec, *cost, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->summary.end_of_data);
  auto elements = sim::ConsumedValues(spec, model, 1000);
  ASSERT_TRUE(elements.ok()) << elements.status().ToString();
  std::vector<int64_t> got;
  for (const Element& e : *elements) got.push_back(e.value.data<int64_t>()[0]);
  ExpectSameOutput(c, got);
}

TEST_P(OpConformance, EndOfSequenceIsRepeated) {
  // The op itself, not the Iterator wrapper around it (which remembers the end and would
  // answer without asking the op): once an op said end, asking it again says end again.
  const OpCase& c = GetParam();
  const spec::PipelineSpec spec =
      testing::Spec(SpecFor(c, c.ops.find("interleave") != std::string::npos ? 6 : 10));
  StageRegistry registry;
  auto built = BuildPipeline(spec, registry, 2);
  ASSERT_TRUE(built.ok()) << built.status().message();
  PipelineContext ctx;
  auto it = built->dataset->MakeIterator(IteratorArgs{&ctx, nullptr});
  ASSERT_TRUE(it.ok()) << it.status().message();
  Element e;
  bool end = false;
  size_t produced = 0;
  while (!end) {
    ASSERT_TRUE(IteratorTestPeer::GetNextInternal(**it, e, end).ok());
    if (!end) ++produced;
  }
  EXPECT_EQ(produced, c.expected.size());
  for (int i = 0; i < 3; ++i) {
    end = false;
    const Status s = IteratorTestPeer::GetNextInternal(**it, e, end);
    ASSERT_TRUE(s.ok()) << "call " << i << " after the end: " << s.message();
    EXPECT_TRUE(end) << "call " << i << " after the end produced an element";
  }
  (*it)->Cancel();
}

TEST_P(OpConformance, CancelStopsABlockedOrRunningConsumerPromptly) {
  const OpCase& c = GetParam();
  // A practically endless source behind every op, and a finite op made endless too, so the
  // consumer is mid-run when the cancel arrives (take 3 would end before it).
  auto p = MakePipeline(SpecFor({c.name, c.endless_ops.empty() ? c.ops : c.endless_ops, c.expected},
                                1'000'000'000'000));
  ASSERT_TRUE(p);
  std::atomic<int64_t> received{0};
  std::atomic<bool> cancel_sent{false};
  auto consumer = std::async(std::launch::async, [&]() -> Status {
    while (true) {
      Element e;
      bool end = false;
      Status s = p->GetNext(e, end);
      if (!s.ok()) return s;
      if (end) {
        return cancel_sent.load() ? s : Internal("the op ended by itself before the cancel");
      }
      received.fetch_add(1);
    }
  });
  // Cancel once elements flow, however long the machine takes to get there.
  for (int i = 0; i < 60'000 && received.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_GT(received.load(), 0) << "no element within a minute";
  cancel_sent.store(true);
  p->Cancel();
  ASSERT_EQ(consumer.wait_for(std::chrono::seconds(30)), std::future_status::ready)
      << "GetNext did not return after Cancel";
  Status s = consumer.get();
  EXPECT_TRUE(s.ok() || s.code() == StatusCode::kCancelled) << s.ToString();
}

TEST_P(OpConformance, LiveKnobChangesKeepTheOutput) {
  const OpCase& c = GetParam();
  // The op sits between a parallel map and a prefetch whose knobs change too, so every op
  // sees its input and output side retuned while it runs.
  const bool interleave = c.ops.find("interleave") != std::string::npos;
  const std::string text =
      "source { range { start: " + std::string(interleave ? "1" : "0") +
      " stop: " + (interleave ? "6" : "10") + " } } " +
      "ops { name: \"pre\" map { fn { identity {} } num_parallel_calls: 2 } } " + c.ops +
      " ops { name: \"post\" prefetch { buffer_size: 1 } }";
  std::vector<std::string> knobs = c.live_knobs;
  knobs.push_back("pre.num_parallel_calls");
  knobs.push_back("post.buffer_size");
  auto p = MakePipeline(text);
  ASSERT_TRUE(p);
  std::mt19937 rng(42);
  std::vector<int64_t> got;
  for (int i = 0;; ++i) {
    const std::string& knob = knobs[static_cast<size_t>(i) % knobs.size()];
    const auto dot = knob.find('.');
    const bool buffer = knob.find("buffer_size") != std::string::npos;
    const int64_t value = static_cast<int64_t>(rng() % 4) + (buffer ? 0 : 1);
    ASSERT_TRUE(p->SetKnob(knob.substr(0, dot), knob.substr(dot + 1), value, "test").ok()) << knob;
    Element e;
    bool end = false;
    ASSERT_TRUE(p->GetNext(e, end).ok());
    if (end) break;
    got.push_back(e.value.scalar_int64());
  }
  ExpectSameOutput(c, got);
  EXPECT_FALSE(p->KnobChanges().empty());
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpConformance, ::testing::ValuesIn(Cases()),
                         [](const auto& test_info) { return test_info.param.name; });

// A dataset that fetches whole batches (fetch_batches: __getitems__, or a sampler of index
// batches with batch_size=None) is called once per batch: every row of a batch is that one
// call's array, where item by item each row is its own call's (marked with its item's id).
TEST(DataLoaderEngineTest, AWholeBatchIsOneCallOfTheDataset) {
  auto first_batch = [](bool fetch_batches) {
    auto p = MakePipeline(std::string("source { range { start: 0 stop: 12 } } "
                                      "ops { dataloader { batch_size: 4 num_workers: 1 "
                                      "worker_startup: \"0s\" getitem { python { duration: "
                                      "\"10us\" } output_bytes: 16 } ") +
                          (fetch_batches ? "fetch_batches: true " : "") + "} }");
    EXPECT_TRUE(p);
    Element e;
    bool end = false;
    EXPECT_TRUE(p->GetNext(e, end).ok());
    EXPECT_FALSE(end);
    return e;
  };
  auto marks = [](const Element& batch) {
    std::set<uint8_t> seen;
    EXPECT_EQ(batch.value.shape(), (Shape{4, 16}));
    for (int64_t row = 0; row < 4; ++row) seen.insert(batch.value.data<uint8_t>()[row * 16]);
    return seen.size();
  };
  EXPECT_EQ(marks(first_batch(true)), 1u) << "one call made the whole batch";
  EXPECT_EQ(marks(first_batch(false)), 4u) << "item by item, four calls";
}

// DataLoader(num_workers=0) fetches in the main process, on the caller's thread: no worker
// is started, the loader's own calls do the work, and its knob may stay at 0 (tuners start
// from 1). It once ran one worker process, the knob clamped to the tuners' range.
TEST(DataLoaderEngineTest, NoWorkersFetchInTheMainProcess) {
  auto worker_threads = [](int workers) {
    auto run = MakeRecordedPipeline(
        "source { range { start: 0 stop: 16 } } ops { name: \"loader\" dataloader { "
        "batch_size: 4 num_workers: " +
        std::to_string(workers) +
        " worker_startup: \"0s\" getitem { python { duration: "
        "\"10us\" } } } }");
    EXPECT_EQ(Drain(*run.pipeline).size(), 4u);
    bool knob_at_zero_allowed = false;
    for (const auto& k : run.pipeline->Knobs()) {
      if (k.op == "loader" && k.knob == "num_workers") {
        EXPECT_EQ(k.value, workers);
        knob_at_zero_allowed = k.min == 0;
      }
    }
    EXPECT_EQ(knob_at_zero_allowed, workers == 0);
    run.Finish();
    int threads = 0;
    for (const auto& [id, name] : run.model->threads()) threads += name.rfind("loader/", 0) == 0;
    return threads;
  };
  EXPECT_EQ(worker_threads(0), 0);
  EXPECT_EQ(worker_threads(2), 2);
}

// Workers that spawn are each sent the dataset: one over a pipe's buffer (1 MiB) holds the
// main process until each worker has started and read it, so the two workers' start-ups
// follow each other, whether its bytes are an array's or a list's entries; forked workers
// inherit it and start together. A spawned dataset under the buffer (32 KiB) does not hold
// it.
TEST(DataLoaderEngineTest, SpawnedWorkersOfALargeDatasetStartOneAfterAnother) {
  // Each worker's start-up span (a kWork of no element) on the loader's tracks, in time order.
  auto startups = [](const std::string& fields) {
    auto run = MakeRecordedPipeline(
        "source { range { start: 0 stop: 8 } } ops { name: \"loader\" dataloader { "
        "batch_size: 4 num_workers: 2 worker_startup: \"150ms\" getitem { python { duration: "
        "\"10us\" } } " +
        fields + " } }");
    EXPECT_EQ(Drain(*run.pipeline).size(), 2u) << fields;
    run.Finish();
    std::vector<std::pair<int64_t, int64_t>> spans;
    const record::StageDef* loader = run.model->StageNamed("loader");
    EXPECT_TRUE(loader != nullptr);
    if (loader == nullptr) return spans;
    for (const trace::Track* t : run.model->TracksOf(record::EventKind::kWork, loader->id)) {
      for (size_t i = 0; i < t->size(); ++i) {
        if (t->element(i) == 0) spans.emplace_back(t->start(i), t->end(i));
      }
    }
    std::sort(spans.begin(), spans.end());
    EXPECT_EQ(spans.size(), 2u) << fields;
    return spans;
  };
  // A list of 8 entries of 10,000 bytes (one for each item the loader's input gives) is
  // over the buffer too.
  for (const std::string fields : {"start_method: spawn dataset_bytes: 1048576",
                                   "start_method: spawn dataset_bytes_per_item: 10000"}) {
    const auto spawned = startups(fields);
    ASSERT_EQ(spawned.size(), 2u);
    EXPECT_GE(spawned[1].first, spawned[0].second)
        << fields << ": the second starts once the first has read";
  }
  for (const std::string fields :
       {"start_method: fork dataset_bytes: 1048576", "start_method: spawn dataset_bytes: 32768"}) {
    const auto together = startups(fields);
    ASSERT_EQ(together.size(), 2u);
    EXPECT_LT(together[1].first, together[0].second) << fields;
  }
}

// Three epochs over two workers: each epoch's iterator starts both again (6 start-ups), or
// with persistent_workers only the first does (2), as on the simulator's clock.
TEST(DataLoaderEngineTest, PersistentWorkersStartOnceOverTheEpochs) {
  auto startups = [](bool persistent) {
    auto run = MakeRecordedPipeline(
        std::string("source { range { start: 0 stop: 8 } } ops { name: \"loader\" dataloader { "
                    "batch_size: 4 num_workers: 2 worker_startup: \"20ms\" getitem { python { "
                    "duration: \"10us\" } } ") +
        (persistent ? "persistent_workers: true " : "") + "} } ops { repeat { count: 3 } }");
    EXPECT_EQ(Drain(*run.pipeline).size(), 6u);
    run.Finish();
    int spans = 0;
    const record::StageDef* loader = run.model->StageNamed("loader");
    EXPECT_TRUE(loader != nullptr);
    if (loader == nullptr) return spans;
    for (const trace::Track* t : run.model->TracksOf(record::EventKind::kWork, loader->id)) {
      for (size_t i = 0; i < t->size(); ++i) spans += t->element(i) == 0 ? 1 : 0;
    }
    return spans;
  };
  EXPECT_EQ(startups(false), 6);
  EXPECT_EQ(startups(true), 2);
}

}  // namespace
}  // namespace pipescope::engine
