// tf.data semantics beyond the conformance table: shapes, randomness, caching, errors.
#include <gtest/gtest.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "engine/spec/spec_loader.h"
#include "tests/engine/test_support.h"

namespace pipescope::engine {
namespace {

using testing::Drain;
using testing::DrainedRecording;
using testing::DrainValues;
using testing::MakePipeline;
using testing::MakeRecordedPipeline;
using testing::Values;

TEST(BatchTest, StacksAlongANewAxisAndKeepsTheRemainder) {
  auto p = MakePipeline("source { range { start: 0 stop: 8 } } ops { batch { batch_size: 3 } }");
  auto out = Drain(*p);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].value.shape(), (Shape{3}));
  EXPECT_EQ(out[2].value.shape(), (Shape{2}));
  EXPECT_EQ(out[1].value.data<int64_t>()[0], 3);
  EXPECT_EQ(out[2].value.data<int64_t>()[1], 7);
}

TEST(BatchTest, DropRemainderDropsTheShortBatch) {
  auto p = MakePipeline(
      "source { range { start: 0 stop: 8 } } ops { batch { batch_size: 3 drop_remainder: true } }");
  auto out = Drain(*p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].value.shape(), (Shape{3}));
}

TEST(BatchTest, NestedBatchesHaveRankTwo) {
  auto p = MakePipeline(
      "source { range { start: 0 stop: 12 } } ops { batch { batch_size: 3 } } "
      "ops { batch { batch_size: 2 } }");
  auto out = Drain(*p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].value.shape(), (Shape{2, 3}));
}

TEST(BatchTest, ABatchGetsAFreshElementId) {
  auto p = MakePipeline("source { range { start: 0 stop: 4 } } ops { batch { batch_size: 2 } }");
  auto out = Drain(*p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_NE(out[0].id, out[1].id);
}

constexpr char kShuffled[] =
    "source { range { start: 0 stop: 100 } } ops { shuffle { buffer_size: 10 seed: 5 } }";

TEST(ShuffleTest, IsAPermutationAndReproducibleWithASeed) {
  auto a = DrainValues(kShuffled);
  auto b = DrainValues(kShuffled);
  EXPECT_EQ(a, b);
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sorted[i], i);
  std::vector<int64_t> identity(sorted);
  EXPECT_NE(a, identity);
}

TEST(ShuffleTest, BufferBoundsHowFarAnElementMovesForward) {
  // With buffer_size B, output i can only be one of the first i + B input elements.
  auto a = DrainValues(kShuffled);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_LT(a[i], static_cast<int64_t>(i) + 10);
}

TEST(ShuffleTest, ReshufflesEachEpochUnlessAskedNotTo) {
  auto epochs = [](bool reshuffle) {
    auto v = DrainValues(std::string("source { range { start: 0 stop: 50 } } ops { shuffle { "
                                     "buffer_size: 50 seed: 3 reshuffle_each_iteration: ") +
                         (reshuffle ? "true" : "false") + " } } ops { repeat { count: 2 } }");
    return std::make_pair(std::vector<int64_t>(v.begin(), v.begin() + 50),
                          std::vector<int64_t>(v.begin() + 50, v.end()));
  };
  auto [a1, a2] = epochs(true);
  EXPECT_NE(a1, a2);
  auto [b1, b2] = epochs(false);
  EXPECT_EQ(b1, b2);
}

TEST(CacheTest, SecondEpochIsServedFromMemory) {
  auto run = MakeRecordedPipeline(
      "source { name: \"src\" range { start: 0 stop: 10 } } ops { cache {} } "
      "ops { repeat { count: 3 } }");
  auto out = Values(Drain(*run.pipeline));
  ASSERT_EQ(out.size(), 30u);
  run.Finish();
  // The source was read once: 10 elements.
  const auto* src = run.model->StageNamed("src");
  ASSERT_NE(src, nullptr);
  size_t calls = 0;
  for (const auto* t : run.model->TracksOf(record::EventKind::kCall, src->id))
    calls += static_cast<size_t>(t->CallsIn(0, t->size()));  // a run counts its calls
  EXPECT_EQ(calls, 10u);
}

TEST(CacheTest, AfterARandomOpTheFirstEpochIsFrozen) {
  // The classic mistake the lessons show: cache after a shuffle repeats the same order.
  auto v = DrainValues(
      "source { range { start: 0 stop: 20 } } ops { shuffle { buffer_size: 20 seed: 9 } } "
      "ops { cache {} } ops { repeat { count: 2 } }");
  ASSERT_EQ(v.size(), 40u);
  EXPECT_EQ(std::vector<int64_t>(v.begin(), v.begin() + 20),
            std::vector<int64_t>(v.begin() + 20, v.end()));
}

TEST(RepeatTest, EndlessRepeatOfAnEmptyDatasetEnds) {
  EXPECT_TRUE(
      DrainValues("source { range { start: 0 stop: 0 } } ops { repeat { count: -1 } }").empty());
}

TEST(ShardTest, ShardsPartitionTheInput) {
  std::multiset<int64_t> all;
  for (int i = 0; i < 4; ++i) {
    for (int64_t v :
         DrainValues("source { range { start: 0 stop: 22 } } ops { shard { num_shards: 4 index: " +
                     std::to_string(i) + " } }")) {
      all.insert(v);
    }
  }
  EXPECT_EQ(all.size(), 22u);
  EXPECT_EQ(std::set<int64_t>(all.begin(), all.end()).size(), 22u);
}

TEST(InterleaveTest, BlockLengthOneAlternatesAcrossTheCycle) {
  auto v = DrainValues(
      "source { range { start: 0 stop: 3 } } ops { interleave { per_element { from_element {} } "
      "ops { repeat { count: 2 } } cycle_length: 3 block_length: 1 num_parallel_calls: 2 } }");
  EXPECT_EQ(v, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
}

TEST(InterleaveTest, ReadsSyntheticFilesConcurrently) {
  // 4 files × 5 records, each record 10 ms: sequential reading needs 200 ms; 4 parallel
  // workers need about 50 ms.
  auto p = MakePipeline(
      "source { range { start: 0 stop: 4 } } ops { interleave { per_element { synthetic_file { "
      "records_per_file: 5 record_bytes: 16 read_latency: \"10ms\" } } cycle_length: 4 "
      "num_parallel_calls: 4 } }");
  const auto t0 = std::chrono::steady_clock::now();
  auto out = Drain(*p);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_EQ(out.size(), 20u);
  EXPECT_LT(ms, 150) << "reading was not concurrent";
  EXPECT_EQ(out[0].value.strings()[0].size(), 16u);
  EXPECT_NE(out[0].value, out[1].value) << "different files must hold different records";
}

TEST(ListFilesTest, ListsMatchingFilesSortedWhenNotShuffled) {
  const auto dir = std::filesystem::temp_directory_path() / "pipescope_list_files_test";
  std::filesystem::create_directories(dir);
  for (const char* name : {"b.rec", "a.rec", "c.txt"}) std::ofstream(dir / name) << "x";
  auto p = MakePipeline("source { list_files { pattern: \"" + (dir / "*.rec").string() +
                        "\" shuffle: false } }");
  auto out = Drain(*p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].value.strings()[0], (dir / "a.rec").string());
  EXPECT_EQ(out[1].value.strings()[0], (dir / "b.rec").string());
  std::filesystem::remove_all(dir);
}

// tf.data's list_files shuffles unless told not to: with a seed (0 included) the order is
// the same every run, a new one each pass; without one it is fresh every run.
TEST(ListFilesTest, ShufflesByDefaultWithTheSeedGiven) {
  const auto dir = std::filesystem::temp_directory_path() / "pipescope_list_files_shuffle_test";
  std::filesystem::create_directories(dir);
  std::vector<std::string> sorted;
  for (int i = 0; i < 12; ++i) {
    const auto path = dir / ("f" + std::to_string(10 + i) + ".rec");
    std::ofstream(path) << "x";
    sorted.push_back(path.string());
  }
  auto names = [&](const std::string& fields) {
    auto p = MakePipeline("source { list_files { pattern: \"" + (dir / "*.rec").string() + "\" " +
                          fields + " } } ops { repeat { count: 2 } }");
    std::vector<std::string> out;
    for (const auto& e : Drain(*p)) out.push_back(e.value.strings()[0]);
    return out;
  };
  const auto a = names("seed: 0"), b = names("seed: 0");
  ASSERT_EQ(a.size(), 24u);
  EXPECT_EQ(a, b) << "a written seed, 0 included, is fixed";
  const std::vector<std::string> first(a.begin(), a.begin() + 12), second(a.begin() + 12, a.end());
  EXPECT_NE(first, sorted) << "shuffled by default";
  EXPECT_NE(first, second) << "a new order each pass";
  std::vector<std::string> first_sorted = first;
  std::sort(first_sorted.begin(), first_sorted.end());
  EXPECT_EQ(first_sorted, sorted);
  const auto c = names(""), d = names("");
  EXPECT_NE(c, d) << "no seed: a fresh order every run (12! orders)";
  std::filesystem::remove_all(dir);
}

// A generator's sleeps are real waits: one before its first yield each time it starts (the
// tf.data guide's 30 ms "open"), and one in every next(). A lower bound only: a busy
// machine can only make it slower.
TEST(FromGeneratorTest, SleepsBeforeItsFirstYieldAndInEachNext) {
  auto p = MakePipeline(
      "source { from_generator { records: 3 duration: \"0us\" wait: \"15ms\" "
      "first_wait: \"30ms\" } } ops { repeat { count: 2 } }");
  const auto started = std::chrono::steady_clock::now();
  const auto out = Drain(*p);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(out.size(), 6u);
  EXPECT_GE(took, std::chrono::milliseconds(2 * 30 + 6 * 15));
}

// An interleave of a Python generator per element (tensorflow#44274's shape): each of
// range(3)'s elements opens a generator of 0, 1, two at a time, taken in turn; its stage
// holds the interpreter lock.
TEST(FromGeneratorTest, AnInterleaveRunsAGeneratorPerElement) {
  auto run = MakeRecordedPipeline(
      "source { range { start: 0 stop: 3 } } ops { name: \"il\" interleave { per_element { "
      "from_generator { records: 2 duration: \"100us\" } } cycle_length: 2 } }");
  EXPECT_EQ(Values(Drain(*run.pipeline)), (std::vector<int64_t>{0, 0, 1, 1, 0, 1}));
  run.Finish();
  const auto* generator = run.model->StageNamed("il.generator");
  ASSERT_NE(generator, nullptr);
  EXPECT_TRUE(generator->Has(record::kTraitHoldsInterpreterLock));
}

// Four threads of pure Python take turns under their process's interpreter lock, and the
// run records each wait for it as a kLockWait span of the map, inside the work span of the
// thread that waited; Python that releases the lock (gil_share 0) records none.
TEST(PythonMapTest, WaitsForTheInterpreterLockAreRecordedInsideTheWork) {
  auto lock_waits = [](const std::string& gil_share) -> size_t {
    auto run = DrainedRecording(
        "source { range { start: 0 stop: 24 } } ops { name: \"py\" map { fn { python { "
        "duration: \"2ms\" gil_share: " +
            gil_share + " } } num_parallel_calls: 4 } }",
        24);
    const uint16_t py = run.model->StageNamed("py")->id;
    size_t waits = 0;
    for (const trace::Track* t : run.model->TracksOf(record::EventKind::kLockWait, py)) {
      const trace::Track* work =
          run.model->FindTrack({record::EventKind::kWork, py, t->key().thread});
      EXPECT_NE(work, nullptr);
      for (size_t i = 0; i < t->size() && work; ++i, ++waits) {
        const size_t w = work->FirstEndingAfter(t->start(i));
        if (w >= work->size()) {
          ADD_FAILURE() << "a wait for the lock after the thread's last work";
          break;
        }
        EXPECT_LE(work->start(w), t->start(i));
        EXPECT_GE(work->end(w), t->end(i));
      }
    }
    return waits;
  };
  EXPECT_GT(lock_waits("1"), 0u);
  EXPECT_EQ(lock_waits("0"), 0u);
}

// The main process receives each batch a worker process sent (unpickling it): a DataLoader's
// on the thread that asked for it, inside that call; Keras's on its pool's result-handler
// thread, which calls nothing (Pool._handle_results, beside the training loop that waits on
// each AsyncResult). The run records a kReceive span of the loader, one a batch. Keras's
// threads (use_multiprocessing=False) hand their batches over as they are: none.
TEST(DataLoaderTest, TheMainProcessReceivingABatchIsRecordedWhereItHappens) {
  struct Receipts {
    size_t inside_calls = 0;
    size_t on_the_result_handler = 0;
  };
  auto receipts = [](const std::string& kind, const std::string& fields) -> Receipts {
    auto run = DrainedRecording(
        "source { range { start: 0 stop: 6 } } ops { name: \"fit\" " + kind +
            " { getitem { python { duration: \"200us\" } output_bytes: 1048576 } " + fields +
            " worker_startup: \"0s\" } }",
        6);
    const uint16_t fit = run.model->StageNamed("fit")->id;
    Receipts r;
    for (const trace::Track* t : run.model->TracksOf(record::EventKind::kReceive, fit)) {
      const trace::Track* calls =
          run.model->FindTrack({record::EventKind::kCall, fit, t->key().thread});
      if (calls == nullptr) {
        EXPECT_EQ(run.model->ThreadName(t->key().thread), "fit.result_handler/0");
        r.on_the_result_handler += t->size();
        continue;
      }
      for (size_t i = 0; i < t->size(); ++i, ++r.inside_calls) {
        EXPECT_GT(t->end(i), t->start(i));
        const size_t c = calls->FirstEndingAfter(t->start(i));
        if (c >= calls->size()) {
          ADD_FAILURE() << "a receipt after the thread's last call";
          break;
        }
        EXPECT_LE(calls->start(c), t->start(i));
        EXPECT_GE(calls->end(c), t->end(i));
      }
    }
    return r;
  };
  const Receipts torch = receipts("dataloader", "batch_size: 1 num_workers: 2");
  EXPECT_EQ(torch.inside_calls, 6u);
  EXPECT_EQ(torch.on_the_result_handler, 0u);
  const Receipts keras = receipts("keras_fit", "workers: 2 use_multiprocessing: true");
  EXPECT_EQ(keras.inside_calls, 0u);
  EXPECT_EQ(keras.on_the_result_handler, 6u);
  const Receipts threads = receipts("keras_fit", "workers: 2 use_multiprocessing: false");
  EXPECT_EQ(threads.inside_calls + threads.on_the_result_handler, 0u);
}

// A generator's next() on Keras's threads runs one call at a time (Keras 2.0 to 2.2's lock
// around it; tf.keras's thread-safe wrapper): 3 threads' fetches of 20 ms of waiting never
// overlap, where a Sequence's __getitem__ on 3 threads do.
TEST(DataLoaderTest, KerassThreadsTakeTurnsAtAGenerator) {
  auto overlaps = [](const std::string& fields) {
    auto run = DrainedRecording(
        "source { range { start: 0 stop: 6 } } ops { name: \"fit\" keras_fit { getitem { "
        "io_wait { duration: \"20ms\" } } workers: 3 " +
            fields + " } }",
        6);
    std::vector<std::pair<int64_t, int64_t>> fetches;
    for (const trace::Track* t :
         run.model->TracksOf(record::EventKind::kWork, run.model->StageNamed("fit")->id)) {
      for (size_t i = 0; i < t->size(); ++i) fetches.emplace_back(t->start(i), t->end(i));
    }
    EXPECT_EQ(fetches.size(), 6u);
    std::sort(fetches.begin(), fetches.end());
    int overlapping = 0;
    for (size_t i = 1; i < fetches.size(); ++i) {
      overlapping += fetches[i].first < fetches[i - 1].second ? 1 : 0;
    }
    return overlapping;
  };
  EXPECT_EQ(overlaps("generator: true"), 0);
  EXPECT_GT(overlaps(""), 0);
}

TEST(RepeatTest, CountZeroIsEmptyAndNeverReadsItsInput) {
  auto p = MakeRecordedPipeline(
      "source { name: \"src\" range { start: 0 stop: 10 } } ops { repeat { count: 0 } }");
  EXPECT_TRUE(Drain(*p.pipeline).empty());
  p.Finish();
  const auto* src = p.model->StageNamed("src");
  ASSERT_NE(src, nullptr);
  size_t calls = 0;
  for (const trace::Track* t : p.model->TracksOf(record::EventKind::kCall, src->id))
    calls += t->size();
  EXPECT_EQ(calls, 0u);
}

TEST(ListFilesTest, NoMatchIsAnErrorNamingThePattern) {
  auto spec = testing::Spec("source { list_files { pattern: \"/nonexistent/*.tfrecord\" } }");
  auto p = Pipeline::Create(spec, {});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("/nonexistent/*.tfrecord"), std::string::npos);
}

// A filter's call_overhead is CPU on every element it looks at, kept or not: keeping one in
// ten of 20 at 2 ms a look burns 40 ms of CPU (half of it counted, the calibration's margin),
// and the output is the predicate's.
TEST(FilterTest, ThePredicatesCallCostsCpuOnEveryElementLookedAt) {
  timespec a{}, b{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  EXPECT_EQ(DrainValues("source { range { stop: 20 } } "
                        "ops { name: \"tenth\" filter { predicate { mod_equals { modulus: 10 } } "
                        "call_overhead: \"2ms\" } }"),
            (std::vector<int64_t>{0, 10}));
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
  const double cpu_ns =
      static_cast<double>(b.tv_sec - a.tv_sec) * 1e9 + static_cast<double>(b.tv_nsec - a.tv_nsec);
  EXPECT_GE(cpu_ns, 20 * 2e6 * 0.5);
}

// Where the validator cannot know the elements' type (a map made them; op_kinds_test has
// the cases it refuses before a run), the run's error names the op.
TEST(ErrorTest, AFilterOnTheWrongTypeNamesTheOp) {
  auto p = MakePipeline(
      "source { range { stop: 3 } } ops { map { fn { normalize {} } } } "
      "ops { name: \"evens\" filter { predicate { mod_equals { modulus: 2 } } } }");
  ASSERT_TRUE(p);
  Element e;
  bool end = false;
  Status s = p->GetNext(e, end);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("filter 'evens'"), std::string::npos) << s.message();
}

TEST(ErrorTest, AMapErrorNamesTheOpTheFunctionAndTheElement) {
  auto p = MakePipeline(
      "source { synthetic { records: 3 record_bytes: 4 } } "
      "ops { name: \"norm\" map { fn { normalize {} } num_parallel_calls: 2 } }");
  Element e;
  bool end = false;
  Status s = p->GetNext(e, end);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("map 'norm' (normalize) on element"), std::string::npos)
      << s.message();
}

// from_tensors(x).repeat(x) needs x to be a count: a string element is an error naming the
// option and what the element was, in the sequential and the parallel interleave alike.
TEST(ErrorTest, RepeatByValueOfAStringSaysItNeedsInt64) {
  for (const char* parallel : {"0", "2"}) {
    auto p = MakePipeline(
        std::string("source { synthetic { records: 3 record_bytes: 4 } } "
                    "ops { name: \"il\" interleave { per_element { from_element { repeat_by_value: "
                    "true } } cycle_length: 2 num_parallel_calls: ") +
        parallel + " } }");
    Element e;
    bool end = false;
    Status s = p->GetNext(e, end);
    ASSERT_FALSE(s.ok()) << parallel;
    EXPECT_NE(s.message().find("repeat_by_value needs int64 scalar elements, got string"),
              std::string::npos)
        << s.message();
  }
}

TEST(ErrorTest, UnbatchOfScalarsSaysThereIsNoBatchDimension) {
  auto p = MakePipeline(
      "source { range { start: 0 stop: 3 } } ops { batch { batch_size: 2 } } ops { unbatch {} } "
      "ops { name: \"u\" unbatch {} }");
  ASSERT_TRUE(p);
  Element e;
  bool end = false;
  Status s = p->GetNext(e, end);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no batch dimension"), std::string::npos);
}

TEST(CancelTest, AnIoWaitInAWorkerDoesNotDelayCancel) {
  auto p = MakePipeline(
      "source { range { start: 0 stop: 100 } } "
      "ops { map { fn { io_wait { duration: \"30s\" } } num_parallel_calls: 2 } }");
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    p->Cancel();
  });
  const auto t0 = std::chrono::steady_clock::now();
  Element e;
  bool end = false;
  Status s = p->GetNext(e, end);
  canceller.join();
  EXPECT_EQ(s.code(), StatusCode::kCancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
}

}  // namespace
}  // namespace pipescope::engine
