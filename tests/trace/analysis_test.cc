// Analysis, gap attribution and the verdict, on traces whose answer is known: built event
// by event here, and recorded from real runs.
#include "instrumentation/trace/analysis.h"

#include <gtest/gtest.h>

#include "engine/device/simulated_device.h"
#include "engine/runtime/training_run.h"
#include "instrumentation/trace/epoch_window.h"
#include "instrumentation/trace/gap_attribution.h"
#include "instrumentation/trace/verdict.h"
#include "tests/engine/test_support.h"

namespace pipescope::trace {
namespace {

using record::EventKind;
constexpr int64_t kMs = 1'000'000;

void Span(Model& m, EventKind kind, uint16_t op, uint32_t thread, int64_t start, int64_t end,
          uint64_t element = 0, uint32_t value = 0) {
  m.AddEvent({start, end, element, value, thread, op, kind, 0});
}

// src → decode (async, one worker) → prefetch; a 10 ms cycle in which the consumer waits
// `wait_ms` for input and then trains for the rest. decode's worker is busy `busy` of the
// time and otherwise waits on its input, whose own work fills that wait when `slow_source`.
std::unique_ptr<Model> Pipeline(int64_t wait_ms, double busy, bool slow_source = false) {
  auto m = std::make_unique<Model>();
  m->run_info().machine.cpu_budget = 8;
  m->AddStage({0, "src", "synthetic", 0, 0, -1, false, 1, 0, record::kTraitSource});
  m->AddStage({1, "decode", "map", 0, 1, 0, true, 1, 0, record::kTraitParallelFunction});
  m->AddStage({2, "prefetch", "prefetch", 0, 2, 1, true, 1, 2, record::kTraitOneProducer});
  uint64_t element = 1;
  for (int64_t c = 0; c < 100; ++c) {
    const int64_t t = c * 10 * kMs;
    Span(*m, EventKind::kInputWait, record::kConsumerOp, 1, t, t + wait_ms * kMs, element);
    Span(*m, EventKind::kStep, record::kDeviceOp, 0, t + wait_ms * kMs, t + 10 * kMs, element);
    const auto work = static_cast<int64_t>(busy * 10 * kMs);
    // decode's worker: pulls its input (src runs on this thread), then works.
    Span(*m, EventKind::kWaitInput, 1, 2, t, t + 10 * kMs - work);
    Span(*m, EventKind::kCall, 0, 2, t, t + 10 * kMs - work, element,
         static_cast<uint32_t>(slow_source ? 10 * kMs - work : 1000));
    Span(*m, EventKind::kWork, 1, 2, t + 10 * kMs - work, t + 10 * kMs, element);
    // prefetch's producer waits on decode the whole time.
    Span(*m, EventKind::kWaitInput, 2, 3, t, t + 10 * kMs);
    ++element;
  }
  return m;
}

// The rate's interval comes from the device's step track itself (batch means over its
// consecutive steps, rate_interval.h), read in place: nine batches of 10 ms steps and one
// of 20 ms give the half width RateIntervalTest works out by hand, 2.262/11 of the rate.
TEST(AnalysisTest, TheRatesIntervalIsReadFromTheStepTrack) {
  Model model;
  record::TraceBatch batch;
  int64_t t = 0;
  for (int i = 0; i <= 100; ++i) {
    batch.events.push_back({t, t + kMs, static_cast<uint64_t>(i + 1), 0, 0, record::kDeviceOp,
                            record::EventKind::kStep, 0});
    t += i >= 50 && i < 60 ? 20 * kMs : 10 * kMs;
  }
  model.Consume(batch, true);
  const RangeAnalysis r = Analyze(model);
  EXPECT_EQ(r.steps, 101);
  EXPECT_NEAR(r.steps_per_s_half_width / r.steps_per_s, 2.262 / 11, 1e-6);
}

TEST(AnalysisTest, MeasuresTheConsumerAndEveryOp) {
  auto m = Pipeline(7, 0.98);
  const RangeAnalysis a = Analyze(*m);
  EXPECT_NEAR(a.duration_s, 1.0, 1e-9);
  EXPECT_EQ(a.steps, 100);
  EXPECT_NEAR(a.steps_per_s, 100, 1e-6);
  EXPECT_NEAR(a.input_wait_fraction, 0.7, 1e-9);
  EXPECT_NEAR(a.device_busy_fraction, 0.3, 1e-9);
  ASSERT_EQ(a.stages.size(), 3u);
  const StageFigures& decode = a.stages[1];
  EXPECT_EQ(decode.name, "decode");
  EXPECT_NEAR(decode.busy_fraction, 0.98, 1e-9);
  EXPECT_NEAR(decode.waiting_input_fraction, 0.02, 1e-9);
  EXPECT_EQ(a.stages[0].elements, 100);
  EXPECT_NEAR(a.stages[0].self_ns_per_element, 1000, 1e-9);
  EXPECT_NEAR(a.stages[2].waiting_input_fraction, 1.0, 1e-9);
}

// src (op 0) → batch (op 1), both on the caller's thread.
void SourceThenBatch(Model& m) {
  m.AddStage({0, "src", "synthetic", 0, 0, -1, false, 1, 0, record::kTraitSource});
  m.AddStage({1, "batch", "batch", 0, 1, 0, false, 1, 0, record::kTraitBatches});
}

TEST(AnalysisTest, ARunOfCallsCountsAsEveryElementInIt) {
  Model m;
  SourceThenBatch(m);
  for (uint64_t b = 0; b < 10; ++b) {
    const int64_t t = static_cast<int64_t>(b) * kMs;
    // One batch of 100 rows: the source's calls as runs of 60 and 40 (600 us of its work).
    m.AddEvent({t, t + kMs / 2, 1 + b * 101, 360'000, 1, 0, EventKind::kCall, 0, 60});
    m.AddEvent({t + kMs / 2, t + kMs, 61 + b * 101, 240'000, 1, 0, EventKind::kCall, 0, 40});
    Span(m, EventKind::kCall, 1, 1, t, t + kMs, 101 + b * 101, 10'000);
  }
  const RangeAnalysis r = Analyze(m, 0, 10 * kMs);
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[0].elements, 1000);
  EXPECT_NEAR(r.stages[0].self_ns_per_element, 6'000, 1);
  EXPECT_EQ(r.stages[1].elements, 10);
  EXPECT_EQ(r.elements, 1000);  // rows: what the batch consumed
}

// A recorded run is graded from its first step on, as a run without a trace is: its rows are
// each step's batch's, though the first batch was made before the range began (cpu_bound
// read 1.6% fewer rows a second recorded than unrecorded when the batch's input calls in
// the range were counted instead).
TEST(AnalysisTest, RowsAreEachStepsBatchsFromTheFirstStepOn) {
  Model m;
  SourceThenBatch(m);
  // Batch b is made in [b ms, b+1 ms) from 4 rows, and trained on in [b+1 ms, b+2 ms).
  for (uint64_t b = 0; b < 10; ++b) {
    const int64_t t = static_cast<int64_t>(b) * kMs;
    m.AddEvent({t, t + kMs / 2, 1 + b * 5, 1000, 1, 0, EventKind::kCall, 0, 4});
    Span(m, EventKind::kCall, 1, 1, t, t + kMs, 5 + b * 5, 1000);
    Span(m, EventKind::kStep, record::kDeviceOp, 0, t + kMs, t + 2 * kMs, 5 + b * 5);
  }
  const RangeAnalysis r = AnalyzeSteady(m);
  EXPECT_EQ(r.steps, 10);
  EXPECT_EQ(r.elements, 40);  // not 36: the first step's rows were taken before it began
}

// Epochs that each start with a wait (a shuffle buffer filled again): 2 s of filling, then
// 10 steps of 100 ms, every 3 s; the repeat sees its input end as each epoch's fill begins.
// A run that ends mid-burst, graded from its first step to its end, reads the burst's rate
// into it; cut to whole epochs, it reads 10 steps in 3 s.
std::unique_ptr<Model> EpochsThatEachRefill(int epochs, int steps_into_the_last) {
  auto m = std::make_unique<Model>();
  m->AddStage({0, "src", "synthetic", 0, 0, -1, false, 1, 0, record::kTraitSource});
  m->AddStage({1, "shuffle", "shuffle", 0, 1, 0, false, 1, 0, 0});
  m->AddStage({2, "epochs", "repeat", 0, 2, 1, false, 1, 0, 0});
  uint64_t element = 1;
  int64_t t = 0;
  for (int e = 0; e < epochs; ++e) {
    if (e > 0) Span(*m, EventKind::kCallEnd, 1, 1, t, t);  // the last pass over shuffle ended
    Span(*m, EventKind::kInputWait, record::kConsumerOp, 1, t, t + 2000 * kMs, element);
    t += 2000 * kMs;
    const int steps = e + 1 < epochs ? 10 : steps_into_the_last;
    for (int s = 0; s < steps; ++s, t += 100 * kMs) {
      if (s > 0) Span(*m, EventKind::kInputWait, record::kConsumerOp, 1, t, t, element);
      Span(*m, EventKind::kStep, record::kDeviceOp, 0, t, t + 100 * kMs, element++);
    }
  }
  m->ExtendDuration(t);
  return m;
}

TEST(AnalysisTest, EpochsThatEachStartWithAWaitAreGradedWhole) {
  const auto m = EpochsThatEachRefill(5, 8);  // ends 8 steps into the fifth epoch's burst
  EXPECT_EQ(EpochEndsNs(*m).size(), 4u);
  const RangeAnalysis r = AnalyzeSteady(*m);
  EXPECT_EQ(r.startup_ns, 2000 * kMs);
  // From the second epoch's start to the fifth's: three whole epochs of 10 steps.
  EXPECT_EQ(r.whole_epochs, 3);
  EXPECT_EQ(r.t0, 3000 * kMs);
  EXPECT_EQ(r.t1, 12000 * kMs);
  EXPECT_EQ(r.steps, 30);
  EXPECT_NEAR(r.steps_per_s, 10.0 / 3, 1e-9);
  EXPECT_NEAR(r.steps_per_s_half_width, 0, 1e-9);  // every epoch alike
  // From the first step to the end: 48 steps in 12.8 s, the last burst counted without the
  // rest of its epoch.
  const RangeAnalysis cut = Analyze(*m, FirstStepNs(*m), m->duration_ns());
  EXPECT_NEAR(cut.steps_per_s, 48 / 12.8, 1e-9);
}

TEST(AnalysisTest, FewerThanOneWholeEpochLeavesTheRangeAsItIs) {
  const auto m = EpochsThatEachRefill(2, 4);
  const RangeAnalysis r = AnalyzeSteady(*m);
  EXPECT_EQ(r.whole_epochs, 0);
  EXPECT_EQ(r.t0, 2000 * kMs);
  EXPECT_EQ(r.t1, m->duration_ns());
}

// A run with no repeat has no epochs to cut to: its ends of sequence (an interleave's files)
// are no epoch's.
TEST(AnalysisTest, WithoutARepeatThereAreNoEpochs) {
  const auto m = Pipeline(2, 0.5);
  Span(*m, EventKind::kCallEnd, 0, 2, 100 * kMs, 100 * kMs);
  Span(*m, EventKind::kCallEnd, 0, 2, 200 * kMs, 200 * kMs);
  EXPECT_TRUE(EpochEndsNs(*m).empty());
  EXPECT_EQ(AnalyzeSteady(*m).whole_epochs, 0);
}

// A run whose first element took 500 ms to come (workers starting, files opening) and that
// then never waits: graded whole, half its time is input wait; after its first step, none.
TEST(AnalysisTest, TheSteadyPartLeavesTheStartUpOutAndSaysHowLongItTook) {
  Model m;
  m.AddStage({0, "src", "synthetic", 0, 0, -1, false, 1, 0, record::kTraitSource});
  Span(m, EventKind::kInputWait, record::kConsumerOp, 1, 0, 500 * kMs, 1);
  for (int64_t c = 0; c < 50; ++c) {
    const int64_t t = 500 * kMs + c * 10 * kMs;
    if (c > 0) Span(m, EventKind::kInputWait, record::kConsumerOp, 1, t, t, 1 + c);
    Span(m, EventKind::kStep, record::kDeviceOp, 0, t, t + 10 * kMs, 1 + c);
  }
  EXPECT_EQ(FirstStepNs(m), 500 * kMs);
  const RangeAnalysis whole = Analyze(m);
  EXPECT_NEAR(whole.input_wait_fraction, 0.5, 1e-9);
  const RangeAnalysis steady = AnalyzeSteady(m);
  EXPECT_EQ(steady.startup_ns, 500 * kMs);
  EXPECT_EQ(steady.t0, 500 * kMs);
  EXPECT_NEAR(steady.duration_s, 0.5, 1e-9);
  EXPECT_EQ(steady.steps, 50);
  EXPECT_NEAR(steady.steps_per_s, 100, 1e-6);
  EXPECT_NEAR(steady.input_wait_fraction, 0, 1e-9);
  EXPECT_EQ(steady.verdict.grade, "not input-bound") << steady.verdict.text;
}

TEST(AnalysisTest, AVerdictNamesTheOpThatStarvesTheConsumer) {
  auto m = Pipeline(7, 0.98);
  const RangeAnalysis a = Analyze(*m);
  EXPECT_NEAR(a.stages[1].caused_wait_share, 1.0, 1e-9);
  EXPECT_EQ(a.verdict.grade, "highly input-bound");
  EXPECT_EQ(a.verdict.bottleneck, "decode");
  // 98% busy on one worker while the consumer waits 70%: about 0.98 / 0.3 = 3.3 workers.
  EXPECT_EQ(a.verdict.suggestion, "raise decode's num_parallel_calls to 4");
  EXPECT_NE(
      a.verdict.text.find("decode is busy 98% with parallelism 1 while the consumer waits 70%"),
      std::string::npos)
      << a.verdict.text;
}

TEST(AnalysisTest, GradesLikeTensorBoardsInputPipelineAnalyzer) {
  EXPECT_EQ(Analyze(*Pipeline(2, 0.98)).verdict.grade, "highly input-bound");      // 20%
  EXPECT_EQ(Analyze(*Pipeline(1, 0.98)).verdict.grade, "moderately input-bound");  // 10%
  const auto ok = Analyze(*Pipeline(0, 0.5));
  EXPECT_EQ(ok.verdict.grade, "not input-bound");
  EXPECT_NE(ok.verdict.suggestion.find("training step"), std::string::npos);
}

TEST(GapAttributionTest, WalksUpstreamPastOpsThatOnlyWaitForTheirInput) {
  // decode's worker now mostly waits on src, whose own work fills that wait.
  auto m = Pipeline(7, 0.1, /*slow_source=*/true);
  const GapCause cause = AttributeGap(*m, 0, 7 * kMs);
  EXPECT_EQ(cause.op, 0);
  const RangeAnalysis a = Analyze(*m);
  EXPECT_EQ(a.verdict.bottleneck, "src");
  EXPECT_NE(a.verdict.suggestion.find("read in parallel"), std::string::npos);
}

TEST(GapAttributionTest, SharesOfWaitingAddUpToTheWaitInTheRange) {
  auto m = Pipeline(7, 0.98);
  const auto caused = AttributeWaiting(*m, 0, 500 * kMs);
  int64_t total = 0;
  for (const auto& [op, ns] : caused) total += ns;
  EXPECT_EQ(total, 50 * 7 * kMs);
  EXPECT_EQ(caused.at(1), total);
}

TEST(AnalysisTest, ARangeSeesOnlyWhatHappenedInIt) {
  auto m = Pipeline(7, 0.98);
  // 5 ms to 25 ms holds the waits [5, 7), [10, 17) and [20, 25): 14 ms of 20.
  const RangeAnalysis a = Analyze(*m, 5 * kMs, 25 * kMs);
  EXPECT_NEAR(a.duration_s, 0.020, 1e-12);
  EXPECT_NEAR(a.input_wait_fraction, 14.0 / 20.0, 1e-9);
  EXPECT_EQ(a.steps, 2);  // the steps starting at 7 ms and 17 ms
}

TEST(AnalysisTest, KnobChangesShowInTheAverageParallelism) {
  auto m = Pipeline(7, 0.98);
  m->AddKnobChange({500 * kMs, 1, "num_parallel_calls", 1, 3, "test"});
  EXPECT_NEAR(Analyze(*m).stages[1].parallelism, 2.0, 1e-9);
  EXPECT_NEAR(Analyze(*m, 600 * kMs, 700 * kMs).stages[1].parallelism, 3.0, 1e-9);
}

// A real run: the input_bound_demo situation in miniature.
TEST(AnalysisTest, ARecordedRunOfASlowSequentialMapBlamesThatMap) {
  auto run = engine::testing::MakeRecordedPipeline(
      "source { name: \"read\" range { stop: 1000000 } } "
      "ops { name: \"decode\" map { fn { cpu_work { duration: \"2ms\" } } } } "
      "ops { name: \"prefetch\" prefetch { buffer_size: 2 } }");
  engine::CancellationToken c;
  engine::SimulatedDevice device(500'000, 1, c);
  device.set_recorder(run.recorder.get());
  engine::RunOptions options;
  options.max_steps = 150;
  ASSERT_TRUE(engine::RunTraining(*run.pipeline, device, options).ok());
  run.Finish();
  const RangeAnalysis a = Analyze(*run.model);
  EXPECT_GT(a.input_wait_fraction, 0.5);
  EXPECT_EQ(a.verdict.grade, "highly input-bound");
  EXPECT_EQ(a.verdict.bottleneck, "decode");
  EXPECT_EQ(a.steps, 150);
  const StageFigures& decode = a.stages[1];
  EXPECT_GT(decode.busy_fraction, 0.4);  // wall-clock share: loose for loaded machines
  // 2 ms of CPU per element; wall time is at least that (more when preempted).
  EXPECT_GT(decode.self_ns_per_element, 1.5e6);
}

// A snapshot of a model reads as the model did when it was taken (every track, the index
// by op, the figures), stays so while the model grows, and is the snapshot's own.
TEST(ModelSnapshotTest, ReadsAsTheModelDidAndStaysWhileTheModelGrows) {
  std::unique_ptr<Model> m = Pipeline(4, 0.5);
  m->AddMarker({5 * kMs, "pipeline rebuilt: moved prefetch"});
  m->AddAnnotation({kMs, 2 * kMs, "a note", "ana"});
  // A track longer than a column's chunk, so that copies span several.
  for (int64_t i = 0; i < 40'000; ++i) Span(*m, EventKind::kCall, 0, 9, i * 10, i * 10 + 5, i);
  const RangeAnalysis before = Analyze(*m);
  const std::unique_ptr<Model> snap = m->Snapshot();
  for (int64_t c = 0; c < 50; ++c) {  // the run goes on
    Span(*m, EventKind::kStep, record::kDeviceOp, 0, (1000 + c) * kMs, (1001 + c) * kMs, c);
  }
  ASSERT_EQ(snap->tracks().size(), m->tracks().size());
  EXPECT_EQ(snap->duration_ns(), before.t1);
  EXPECT_LT(snap->duration_ns(), m->duration_ns());
  EXPECT_EQ(snap->event_count(), m->event_count() - 50);
  for (size_t t = 0; t < snap->tracks().size(); ++t) {
    const Track& a = *snap->tracks()[t];
    const Track& b = *m->tracks()[t];
    EXPECT_EQ(a.key(), b.key());
    EXPECT_EQ(a.id(), t);
    if (b.key().kind == EventKind::kStep) continue;  // grew after the snapshot
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a.start(i), b.start(i)) << t << " " << i;
      ASSERT_EQ(a.end(i), b.end(i)) << t << " " << i;
      ASSERT_EQ(a.element(i), b.element(i)) << t << " " << i;
      ASSERT_EQ(a.value(i), b.value(i)) << t << " " << i;
    }
  }
  for (const Track* t : snap->TracksOf(EventKind::kCall, 0)) {
    EXPECT_EQ(t, snap->tracks()[t->id()].get()) << "the index by op points into the snapshot";
  }
  EXPECT_EQ(snap->FindTrack(snap->tracks()[0]->key()), snap->tracks()[0].get());
  ASSERT_EQ(snap->markers().size(), 1u);
  ASSERT_EQ(snap->annotations().size(), 1u);
  EXPECT_EQ(snap->StageNamed("decode")->id, 1);
  const RangeAnalysis after = Analyze(*snap);
  EXPECT_EQ(after.steps, before.steps);
  EXPECT_DOUBLE_EQ(after.steps_per_s, before.steps_per_s);
  EXPECT_DOUBLE_EQ(after.input_wait_fraction, before.input_wait_fraction);
  EXPECT_EQ(after.verdict.text, before.verdict.text);
  // The snapshot takes events of its own, on its own tracks.
  Span(*snap, EventKind::kCall, 0, 9, 500'000, 500'005);
  EXPECT_EQ(snap->FindTrack({EventKind::kCall, 0, 9, 0})->size(), 40'001u);
  EXPECT_EQ(m->FindTrack({EventKind::kCall, 0, 9, 0})->size(), 40'000u);
}

}  // namespace
}  // namespace pipescope::trace

namespace pipescope::trace {
namespace {

// A verdict made from figures alone (verdict.h): an input-bound map at parallelism 2.
RangeAnalysis Starving(double parallelism, double cpu_share) {
  RangeAnalysis r;
  r.input_wait_fraction = 0.3;
  StageFigures decode;
  decode.name = "decode";
  decode.op = "map";
  decode.traits = record::kTraitParallelFunction;
  decode.asynchronous = true;
  decode.parallelism = parallelism;
  decode.busy_fraction = 0.98;
  decode.caused_wait_share = 1;
  decode.cpu_share = cpu_share;
  decode.cpu_cores = parallelism * cpu_share;
  r.stages.push_back(decode);
  return r;
}

// Starving's decode with `traits` besides its own.
RangeAnalysis StarvingWith(double parallelism, double cpu_share, uint32_t traits) {
  RangeAnalysis r = Starving(parallelism, cpu_share);
  r.stages[0].traits |= traits;
  return r;
}

TEST(VerdictTest, NeverSuggestsTheParallelismAnOpAlreadyHas) {
  // The time average sits below the knob when it was raised in the range: 1.4, knob 2.
  const Verdict v = MakeVerdict(Starving(1.4, 0.98), 8);
  EXPECT_EQ(v.suggestion.find("to 2"), std::string::npos) << v.suggestion;
  EXPECT_NE(v.suggestion.find("raise decode's num_parallel_calls to 3"), std::string::npos)
      << v.suggestion;
  const Verdict at_budget = MakeVerdict(Starving(4, 0.98), 4);
  EXPECT_EQ(at_budget.suggestion.find("raise"), std::string::npos) << at_budget.suggestion;
  EXPECT_NE(at_budget.suggestion.find("already has num_parallel_calls 4"), std::string::npos)
      << at_budget.suggestion;
}

// At the CPU budget, the way on is less work per element: vectorising only where the
// function takes a batch (decode_jpeg takes one image), a cache only where nothing random
// is in the work it would replay.
TEST(VerdictTest, AtTheBudgetItSuggestsOnlyTheRemediesTheFunctionAllows) {
  const auto suggestion = [](uint32_t traits) {
    RangeAnalysis r = Starving(4, 0.98);
    r.stages[0].traits |= traits;
    return MakeVerdict(r, 4).suggestion;
  };
  const std::string plain = suggestion(0);
  EXPECT_NE(plain.find("(vectorise it after batch, cache after it)"), std::string::npos) << plain;
  const std::string one_element = suggestion(record::kTraitOneElementFunction);
  EXPECT_EQ(one_element.find("vectorise"), std::string::npos) << one_element;
  EXPECT_NE(one_element.find("(cache after it)"), std::string::npos) << one_element;
  const std::string random = suggestion(record::kTraitRandom);
  EXPECT_EQ(random.find("cache"), std::string::npos) << random;
  const std::string neither = suggestion(record::kTraitOneElementFunction | record::kTraitRandom);
  EXPECT_NE(neither.find("cut its work per element or add cores"), std::string::npos) << neither;
  // A shuffle before it (regnety#4's shape, shuffled records then the decode): a cache after
  // the decode would replay the first epoch's order.
  RangeAnalysis shuffled = Starving(4, 0.98);
  StageFigures shuffle;
  shuffle.name = "shuffle";
  shuffle.op = "shuffle";
  shuffle.traits = record::kTraitRandom;
  shuffled.stages.insert(shuffled.stages.begin(), shuffle);
  const std::string after_shuffle = MakeVerdict(shuffled, 4).suggestion;
  EXPECT_NE(after_shuffle.find("decode already has"), std::string::npos) << after_shuffle;
  EXPECT_EQ(after_shuffle.find("cache"), std::string::npos) << after_shuffle;
}

// A DataLoader whose workers are idle half the time while the consumer waits is not short
// of workers or cores: its epochs begin with nothing fetched (lesson 15's solution was told
// to add cores).
// A range of `steps` in `duration_s` whose consumer waited `wait` of it, on a DataLoader
// ("loader": worker processes, batches) that caused `caused` of the waiting, busy `busy`.
RangeAnalysis LoaderRange(int64_t steps, double duration_s, double wait, double busy,
                          double caused) {
  RangeAnalysis r;
  r.steps = steps;
  r.duration_s = duration_s;
  r.input_wait_fraction = wait;
  StageFigures loader;
  loader.name = "loader";
  loader.traits = record::kTraitWorkerProcesses | record::kTraitBatches;
  loader.busy_fraction = busy;
  loader.caused_wait_share = caused;
  r.stages = {loader};
  return r;
}

TEST(VerdictTest, IdleLoaderWorkersAreNotToldToGrow) {
  RangeAnalysis r = LoaderRange(262, 4.6, 0.13, 0.47, 0.98);
  StageFigures& loader = r.stages[0];
  loader.asynchronous = true;
  loader.parallelism = 4;
  StageFigures epochs;
  epochs.name = "epochs";
  epochs.traits = record::kTraitRepeats;
  r.stages.push_back(epochs);
  const Verdict v = MakeVerdict(r, 4);
  EXPECT_NE(v.suggestion.find("loader's workers are busy only 47%: the consumer waits as each "
                              "epoch begins"),
            std::string::npos)
      << v.suggestion;
  EXPECT_EQ(v.suggestion.find("add cores"), std::string::npos) << v.suggestion;
  EXPECT_FALSE(v.suggests_change);
  // Busy workers at the budget are: the work per item is the limit.
  r.stages[0].busy_fraction = 0.95;
  EXPECT_NE(MakeVerdict(r, 4).suggestion.find("add cores"), std::string::npos);
}

// A loader in the main process (num_workers=0) is told to start workers only where a batch
// costs it more to fetch than one costs to receive from a worker (45 us): a TensorDataset
// indexed a whole batch at a time, 26 us a batch, is right as it is.
TEST(VerdictTest, AMainProcessLoaderFasterThanAWorkersHandOverKeepsNoWorkers) {
  RangeAnalysis r = LoaderRange(8442, 3.7, 0.10, 0.06, 1);
  StageFigures& loader = r.stages[0];
  loader.asynchronous = false;
  loader.parallelism = 1;
  loader.elements = 8442;
  loader.self_ns_per_element = 25'800;
  const Verdict cheap = MakeVerdict(r, 8);
  EXPECT_NE(cheap.suggestion.find("loader fetches each batch in the main process in 25.8 µs, less "
                                  "than receiving one from a worker process takes (45 µs"),
            std::string::npos)
      << cheap.suggestion;
  EXPECT_FALSE(cheap.suggests_change);
  // Item by item, 400 us a batch: workers fetch it while the step runs.
  r.stages[0].self_ns_per_element = 400'000;
  r.stages[0].busy_fraction = 0.5;
  const Verdict costly = MakeVerdict(r, 8);
  EXPECT_NE(costly.suggestion.find("set num_workers to 4"), std::string::npos) << costly.suggestion;
}

// No step yet, and a shuffle holding what its input gave: the buffer is filling, which the
// verdict says with when it will be full, instead of asking for an empty file list.
TEST(VerdictTest, NoStepWhileAShuffleBufferFillsIsSaidSo) {
  RangeAnalysis r;
  r.duration_s = 250;
  StageFigures decode;
  decode.name = "decode";
  decode.traits = record::kTraitParallelFunction;
  decode.elements = 229192;
  decode.elements_per_s = 916.4;
  StageFigures shuffle;
  shuffle.name = "shuffle";
  shuffle.traits = record::kTraitRandom | record::kTraitDrawsOrderFromBuffer;
  shuffle.buffer_size = 2325000;
  r.stages = {decode, shuffle};
  const Verdict filling = MakeVerdict(r, 2);
  EXPECT_EQ(filling.grade, "no input");
  EXPECT_NE(filling.evidence.find("shuffle has taken 229192 elements into a buffer of 2325000"),
            std::string::npos)
      << filling.evidence;
  EXPECT_NE(filling.evidence.find("it is full after 2537 s"), std::string::npos)
      << filling.evidence;
  EXPECT_NE(filling.suggestion.find("smaller shuffle buffer"), std::string::npos);
  // Nothing taken in: the input gave nothing, and the verdict asks why.
  r.stages[0].elements = 0;
  const Verdict empty = MakeVerdict(r, 2);
  EXPECT_NE(empty.suggestion.find("an empty file list"), std::string::npos) << empty.suggestion;
}

// A start-up that is most of the run is said, though the figures leave it out.
TEST(VerdictTest, AStartUpThatIsMostOfTheRunIsSaid) {
  RangeAnalysis r = Starving(1, 0.98);
  r.steps = 157;
  r.duration_s = 1.6;
  r.startup_ns = 10'900'000'000;
  const Verdict v = MakeVerdict(r, 2);
  EXPECT_NE(v.evidence.find("the first step came after 10.9 s of start-up (87% of the run)"),
            std::string::npos)
      << v.evidence;
  r.startup_ns = 100'000'000;
  EXPECT_EQ(MakeVerdict(r, 2).evidence.find("start-up"), std::string::npos);
}

// One step after a start-up that was most of the run: its wait is not graded either way
// (seed 002 at --duration 3: a shuffle buffer filled for 6.8 s, then one step took from it).
TEST(VerdictTest, OneStepAfterALongStartUpIsNotGraded) {
  RangeAnalysis r = Starving(1, 0.98);
  r.steps = 1;
  r.duration_s = 0.25;
  r.input_wait_fraction = 0;
  r.startup_ns = 6'840'000'000;
  const Verdict one = MakeVerdict(r, 12);
  EXPECT_EQ(one.grade, "too short to grade") << one.text;
  EXPECT_NE(one.text.find("1 step in 250 ms came after 6.84 s of start-up (96% of the run)"),
            std::string::npos)
      << one.text;
  EXPECT_NE(one.suggestion.find("longer --duration"), std::string::npos) << one.suggestion;
  // Enough steps after it are graded, with the start-up said.
  r.steps = kFewestStepsToGrade;
  EXPECT_EQ(MakeVerdict(r, 12).grade, "not input-bound");
  // So is one step after a start-up too short to say.
  r.steps = 1;
  r.startup_ns = 10'000'000;
  EXPECT_EQ(MakeVerdict(r, 12).grade, "not input-bound");
}

// Python on one thread (from_generator's next()) holds the lock with no other thread to take
// turns with (tensorflow#13101): said so; threads that share the lock take turns.
TEST(VerdictTest, PythonOnOneThreadIsNotSaidToTakeTurns) {
  const Verdict alone = MakeVerdict(StarvingWith(1, 1.0, record::kTraitHoldsInterpreterLock), 2);
  EXPECT_NE(alone.evidence.find("it runs Python on one thread, under the interpreter lock"),
            std::string::npos)
      << alone.evidence;
  EXPECT_EQ(alone.evidence.find("taking turns"), std::string::npos) << alone.evidence;
  EXPECT_NE(MakeVerdict(StarvingWith(4, 0.27, record::kTraitHoldsInterpreterLock), 4)
                .evidence.find("taking turns under the interpreter lock"),
            std::string::npos);
  // A share the run did not measure (-1) is not said as one ("got -100% of a core").
  for (const double threads : {1.0, 4.0}) {
    const Verdict unmeasured =
        MakeVerdict(StarvingWith(threads, -1, record::kTraitHoldsInterpreterLock), 4);
    EXPECT_EQ(unmeasured.evidence.find("of a core"), std::string::npos) << unmeasured.evidence;
    EXPECT_NE(unmeasured.evidence.find("under the interpreter lock"), std::string::npos)
        << unmeasured.evidence;
  }
}

// No step: where the elements stop is said (seed 000's shard(10, 1) of one file's name gives
// worker 1 nothing), with shard's own remedy; an op that only waited for nothing is not it.
TEST(VerdictTest, NoInputSaysWhichOpGaveNoneOfItsInput) {
  RangeAnalysis r;
  r.duration_s = 1;
  const auto stage = [](const std::string& name, const std::string& op, int64_t elements,
                        int depth = 0) {
    StageFigures s;
    s.name = name;
    s.op = op;
    s.elements = elements;
    s.depth = depth;
    return s;
  };
  r.stages = {stage("list_files", "range", 1), stage("shard", "shard", 0),
              stage("interleave", "interleave", 0), stage("parse", "map", 0)};
  const Verdict v = MakeVerdict(r, 2);
  EXPECT_EQ(v.grade, "no input");
  EXPECT_NE(v.evidence.find("shard gave none of the 1 element list_files gave it"),
            std::string::npos)
      << v.evidence;
  EXPECT_NE(v.suggestion.find("fewer elements than shards leave some workers none"),
            std::string::npos)
      << v.suggestion;
  r.stages[1] = stage("keep", "filter", 0);
  EXPECT_NE(MakeVerdict(r, 2).suggestion.find("check what keep does with its input"),
            std::string::npos);
}

// Python on one thread that used next to no core while it worked waits (the tf.data guide's
// time.sleep in a generator or a py_function): it releases the lock while it waits, so the
// lock is not blamed. A generator's waits overlap with a prefetch after it or beside other
// generators; a map's on more threads. A hand-over of the lock (waits under a hundredth of
// the work) is no turn-taking.
TEST(VerdictTest, PythonThatWaitsIsNotBlamedOnTheLock) {
  RangeAnalysis generator = StarvingWith(1, 0.02, record::kTraitHoldsInterpreterLock);
  generator.stages[0].traits = record::kTraitSource | record::kTraitHoldsInterpreterLock;
  generator.stages[0].lock_wait_fraction = 0.001;
  const Verdict g = MakeVerdict(generator, 2);
  EXPECT_NE(g.evidence.find("it waits (a sleep, a read, a request) with the interpreter lock "
                            "released"),
            std::string::npos)
      << g.evidence;
  EXPECT_EQ(g.evidence.find("under the interpreter lock"), std::string::npos) << g.evidence;
  EXPECT_EQ(g.evidence.find("waiting for the interpreter lock"), std::string::npos) << g.evidence;
  EXPECT_TRUE(g.suggests_change);
  EXPECT_NE(g.suggestion.find("overlap its waits: prefetch after decode"), std::string::npos)
      << g.suggestion;
  const Verdict map = MakeVerdict(StarvingWith(1, 0.02, record::kTraitHoldsInterpreterLock), 2);
  EXPECT_NE(map.suggestion.find("decode's num_parallel_calls"), std::string::npos)
      << map.suggestion;
  // Half a core, its function not known to wait (tensorflow#14480's generator of 2 us an
  // element beside its batch on 2 cores): it may as well share the cores; one known to wait
  // (kTraitWaits) is said to.
  generator.stages[0].cpu_share = 0.53;
  const Verdict half = MakeVerdict(generator, 2);
  EXPECT_NE(half.evidence.find("or shares the cores with other threads"), std::string::npos)
      << half.evidence;
  generator.stages[0].traits |= record::kTraitWaits;
  EXPECT_EQ(MakeVerdict(generator, 2).evidence.find("or shares the cores"), std::string::npos);
}

// Keras's enqueuer, in Keras's words: threads running Python take turns under the lock, so
// the way out is use_multiprocessing; processes (no lock trait) are raised as workers.
TEST(VerdictTest, KerasWorkersAreThreadsUnderTheLockOrProcesses) {
  RangeAnalysis threads = Starving(2, 0.5);
  threads.stages[0].name = "fit";
  threads.stages[0].op = "keras_fit";
  threads.stages[0].traits = record::kTraitEnqueuerWorkers | record::kTraitHoldsInterpreterLock;
  const Verdict v = MakeVerdict(threads, 4);
  EXPECT_NE(v.suggestion.find("fit's 2 workers are threads"), std::string::npos) << v.suggestion;
  EXPECT_NE(v.suggestion.find("use_multiprocessing=True"), std::string::npos) << v.suggestion;
  EXPECT_EQ(v.suggestion.find("num_workers"), std::string::npos) << "PyTorch's word, not Keras's";
  RangeAnalysis processes = threads;
  processes.stages[0].traits = record::kTraitEnqueuerWorkers;
  processes.stages[0].cpu_share = 0.98;
  const Verdict p = MakeVerdict(processes, 4);
  EXPECT_NE(p.suggestion.find("raise fit's workers to 3"), std::string::npos) << p.suggestion;
  // As many processes as cores, each using its core: one more shares them (keras#7168's
  // flow with workers=4 on 2 cores); the work per batch is what is left.
  const Verdict full = MakeVerdict(processes, 2);
  EXPECT_NE(full.suggestion.find("fit already has workers 2, as many as the 2 cores"),
            std::string::npos)
      << full.suggestion;
  EXPECT_FALSE(full.suggests_change);
}

TEST(VerdictTest, WorkersThatGotLittleCpuMeanABusyMachine) {
  // Two workers that got 35% of a core each while working: 0.7 cores.
  const Verdict v = MakeVerdict(Starving(2, 0.35), 8);
  EXPECT_EQ(v.suggestion,
            "decode's 2 workers ran on 0.7 cores while working: the machine is busy with other "
            "work; measure on a quiet machine or lower the parallelism");
  EXPECT_NE(v.evidence.find("got 35% of a core"), std::string::npos) << v.evidence;
  // More worker threads than cores: they take turns.
  const Verdict turns = MakeVerdict(Starving(4, 0.45), 2);
  EXPECT_NE(turns.suggestion.find("runs 4 worker threads on 2 cores"), std::string::npos)
      << turns.suggestion;
  // One worker: no parallelism to lower.
  const Verdict one = MakeVerdict(Starving(1, 0.35), 8);
  EXPECT_NE(one.suggestion.find("busy with other work"), std::string::npos) << one.suggestion;
  EXPECT_EQ(one.suggestion.find("lower the parallelism"), std::string::npos) << one.suggestion;
  // Enough CPU: the usual advice.
  EXPECT_EQ(MakeVerdict(Starving(2, 0.9), 8).suggestion.find("busy with other work"),
            std::string::npos);
}

// A function that blocks beside its work (record::kTraitWaits: a read, a database, a sleep)
// whose threads used little of a core with cores to spare waits, not for a core: more threads
// than cores still help. The same figures without the trait are a busy machine; with the
// cores used up (more threads than cores), its threads waited for a core too.
TEST(VerdictTest, AFunctionThatWaitsIsNotABusyMachine) {
  const Verdict v = MakeVerdict(StarvingWith(4, 0.1, record::kTraitWaits), 2);
  EXPECT_NE(v.evidence.find("they wait (a read, a request, a sleep), not for a core"),
            std::string::npos)
      << v.text;
  EXPECT_NE(v.suggestion.find("raise decode's num_parallel_calls to "), std::string::npos)
      << v.suggestion;
  EXPECT_EQ(v.suggestion.find("busy with other work"), std::string::npos) << v.suggestion;
  EXPECT_NE(MakeVerdict(Starving(4, 0.1), 2).suggestion.find("2 cores"), std::string::npos);
  const Verdict crowded = MakeVerdict(StarvingWith(4, 0.4, record::kTraitWaits), 2);  // 1.6 cores
  EXPECT_EQ(crowded.evidence.find("they wait"), std::string::npos) << crowded.text;
}

TEST(VerdictTest, StorageThatAnswersSlowlyIsNotABusyMachine) {
  // A source inside an interleave, busy 90% on 5% of a core: it waits on storage.
  RangeAnalysis r = Starving(1, 0.05);
  r.stages[0].name = "read.read";
  r.stages[0].traits = record::kTraitSource;
  r.stages[0].depth = 1;
  r.stages[0].busy_fraction = 0.9;
  const Verdict v = MakeVerdict(r, 2);
  EXPECT_EQ(v.suggestion.find("busy with other work"), std::string::npos) << v.suggestion;
  EXPECT_NE(v.evidence.find("wait for the storage to answer"), std::string::npos) << v.evidence;
  EXPECT_TRUE(v.suggests_change);
}

// The interleave's own knobs decide what reading more files at once can still ask of it:
// taking whichever file answers first is said only where it waits for each in turn.
TEST(VerdictTest, SlowFilesOfAnInterleaveAreToldOnlyWhatItDoesNotDoYet) {
  RangeAnalysis r = Starving(1, 0.05);
  r.stages[0].name = "read.read";
  r.stages[0].traits = record::kTraitSource;
  r.stages[0].depth = 1;
  StageFigures interleave;
  interleave.name = "files";
  interleave.op = "interleave";
  interleave.traits = record::kTraitParallelReads;
  interleave.asynchronous = true;
  interleave.parallelism = 4;
  r.stages.insert(r.stages.begin(), interleave);
  const std::string in_order = MakeVerdict(r, 2).suggestion;
  EXPECT_NE(in_order.find("raise files's cycle_length"), std::string::npos) << in_order;
  EXPECT_NE(in_order.find("deterministic=False"), std::string::npos) << in_order;
  r.stages[0].traits |= record::kTraitFirstReady;
  const std::string first_ready = MakeVerdict(r, 2).suggestion;
  EXPECT_NE(first_ready.find("raise files's cycle_length"), std::string::npos) << first_ready;
  EXPECT_EQ(first_ready.find("deterministic=False"), std::string::npos) << first_ready;
  // A source in a flat_map's sub-pipeline, or in none, has no cycle_length to raise.
  r.stages[0].op = "flat_map";
  r.stages[0].traits = 0;
  r.stages[0].asynchronous = false;
  const std::string flat_map = MakeVerdict(r, 2).suggestion;
  EXPECT_EQ(flat_map.find("cycle_length"), std::string::npos) << flat_map;
  r.stages.erase(r.stages.begin());
  const std::string alone = MakeVerdict(r, 2).suggestion;
  EXPECT_EQ(alone.find("cycle_length"), std::string::npos) << alone;
}

// A parse mapped inside an interleave's files (tensorflow#37969's 12 threads of it a file)
// computes: little of a core while busy is the machine's crowding, not a storage's answer.
TEST(VerdictTest, AMapInsideAnInterleaveIsNotSaidToWaitForStorage) {
  RangeAnalysis r = Starving(12, 0.05);
  r.stages[0].name = "parse";
  r.stages[0].depth = 1;
  const Verdict v = MakeVerdict(r, 14);
  EXPECT_EQ(v.evidence.find("wait for the storage to answer"), std::string::npos) << v.evidence;
}

TEST(VerdictTest, AnOpThatWasNotBusyIsNeverBlamed) {
  // The gaps were attributed to resize, which was busy 1% of the time (it waited for its
  // own input); read did the work.
  RangeAnalysis r = Starving(1, 0.98);
  r.stages[0].name = "resize";
  r.stages[0].busy_fraction = 0.01;
  r.stages[0].caused_wait_share = 0.9;
  StageFigures read = r.stages[0];
  read.name = "read";
  read.busy_fraction = 0.8;
  read.caused_wait_share = 0.1;
  r.stages.insert(r.stages.begin(), read);
  const Verdict v = MakeVerdict(r, 2);
  EXPECT_EQ(v.bottleneck, "read");
  EXPECT_EQ(v.text.find("resize"), std::string::npos) << v.text;
}

TEST(VerdictTest, ARunThatGotNoElementSaysSoWithoutARate) {
  RangeAnalysis r = Starving(1, 0.98);
  r.steps = 0;
  r.elements = 0;
  r.duration_s = 0.000002;
  const Verdict v = MakeVerdict(r, 2);
  EXPECT_EQ(v.grade, "no input");
  EXPECT_NE(v.text.find("no element reached the training step"), std::string::npos) << v.text;
  EXPECT_FALSE(v.suggests_change);
}

TEST(VerdictTest, SetSuggestionRewritesTheText) {
  Verdict v = MakeVerdict(Starving(1, 0.98), 8);
  SetSuggestion(v, "add a prefetch");
  EXPECT_EQ(v.suggestion, "add a prefetch");
  EXPECT_NE(v.text.find("Suggestion: add a prefetch."), std::string::npos) << v.text;
  EXPECT_EQ(v.text.find("num_parallel_calls"), std::string::npos) << v.text;
}

}  // namespace
}  // namespace pipescope::trace
