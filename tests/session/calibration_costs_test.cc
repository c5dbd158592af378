// Calibration's per-element costs from traces whose answer is known: a source whose cheap
// calls the recorder folded into runs (each run weighs as the calls it holds, so a few
// single calls slowed by the machine do not outweigh a million fast ones), and a map worker
// on a busy machine, whose CPU time is shared between its function and the calls it pulls
// input through (their self times are wall time, longer than the CPU they got).
#include <gtest/gtest.h>

#include "app/session/calibration.h"

namespace pipescope::session {
namespace {

using record::EventKind;

constexpr int64_t kUs = 1000;

std::unique_ptr<trace::Model> TraceOf(const std::string& spec_text) {
  auto model = std::make_unique<trace::Model>();
  model->run_info().spec_text = spec_text;
  return model;
}

record::StageDef Stage(uint16_t id, const std::string& name, const std::string& kind, int input,
                       bool asynchronous, uint32_t traits) {
  record::StageDef s;
  s.id = id;
  s.name = name;
  s.kind = kind;
  s.traits = traits;
  s.position = id;
  s.input = input;
  s.asynchronous = asynchronous;
  return s;
}

// A Python map whose every call takes 5 ms of its own, and every other call also waits 6 ms
// for the interpreter lock inside its span: the spread fitted is the function's (none), not
// the spans' with the other threads' Python in them.
TEST(CalibrationCostsTest, APythonMapsSpreadLeavesOutItsWaitsForTheLock) {
  auto trace = TraceOf(R"(name: "t" source { name: "ids" range { start: 0 stop: 100000 } }
      ops { name: "py" map { fn { python { duration: "5ms" } } num_parallel_calls: 2 } }
      train_step { step_time: "1ms" })");
  trace->AddStage(Stage(0, "ids", "range", -1, false, record::kTraitSource));
  trace->AddStage(Stage(1, "py", "map", 0, true,
                        record::kTraitParallelFunction | record::kTraitHoldsInterpreterLock));
  const int64_t ms = 1000 * kUs;
  int64_t t = 0;
  for (uint64_t e = 1; e <= 200; ++e) {
    const int64_t waited = e % 2 == 0 ? 6 * ms : 0;
    if (waited > 0) trace->AddEvent({t, t + waited, 0, 0, 7, 1, EventKind::kLockWait, 0});
    trace->AddEvent({t, t + waited + 5 * ms, e, 0, 7, 1, EventKind::kWork, 0});
    t += waited + 5 * ms;
  }
  trace->ExtendDuration(t);
  auto fitted = Calibrate(*trace, "py.pstrace");
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_LT(fitted->model.Of("py").cpu.cv, 0.05);
}

// A DataLoader whose two workers started three times (each epoch, not persistent), taking
// 110, 120 and 130 ms: the fit's start-up is their mean, over the whole run (epochs start
// before the steady part), and a note says so.
TEST(CalibrationCostsTest, AWorkerProcessStartUpIsTheMeanOfItsStarts) {
  auto trace = TraceOf(R"(name: "t" source { name: "ids" range { start: 0 stop: 64 } }
      ops { name: "loader" dataloader { batch_size: 8 num_workers: 2
            getitem { python { duration: "1ms" } } } }
      ops { name: "epochs" repeat {} }
      train_step { step_time: "1ms" })");
  trace->AddStage(Stage(0, "ids", "range", -1, false, record::kTraitSource));
  trace->AddStage(Stage(1, "loader", "dataloader", 0, true, record::kTraitWorkerProcesses));
  const int64_t ms = 1000 * kUs;
  int64_t t = 0;
  for (const int64_t start : {110 * ms, 120 * ms, 130 * ms}) {
    // The start-up span (no element), then the epoch's batches.
    trace->AddEvent({t, t + start, 0, 0, 7, 1, EventKind::kWork, record::kFlagStartUp});
    t += start;
    for (uint64_t b = 1; b <= 8; ++b, t += 8 * ms) {
      trace->AddEvent({t, t + 8 * ms, b, 0, 7, 1, EventKind::kWork, 0});
    }
  }
  trace->ExtendDuration(t);
  auto fitted = Calibrate(*trace, "loader.pstrace");
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  EXPECT_EQ(fitted->model.Of("loader").worker_startup_ns, 120 * ms);
  bool noted = false;
  for (const auto& n : fitted->notes)
    noted |= n == "loader: a worker's start-up 120.0 ms, the mean of 3 starts";
  EXPECT_TRUE(noted);
}

TEST(CalibrationCostsTest, ARunOfFoldedCallsWeighsAsTheCallsItHolds) {
  auto trace =
      TraceOf(R"(name: "t" source { name: "read" synthetic { records: -1 record_bytes: 8 } }
                          train_step { step_time: "1ms" })");
  trace->AddStage(Stage(0, "read", "synthetic", -1, false, record::kTraitSource));
  trace->AddThread({1, "consumer"});
  // Alternately a run of 1000 calls of 300 ns and one call slowed to 50 us.
  int64_t t = 0;
  uint64_t element = 1;
  for (int i = 0; i < 400; ++i) {
    record::TraceEvent run{t, t + 1000 * 400, element, 1000 * 300, 1, 0, EventKind::kCall, 0};
    run.calls = 1000;
    trace->AddEvent(run);
    element += 1000;
    t += 1000 * 400 + 10 * kUs;
    trace->AddEvent({t, t + 50 * kUs, element++, 50 * kUs, 1, 0, EventKind::kCall, 0});
    t += 60 * kUs;
  }
  trace->ExtendDuration(t);
  auto fitted = Calibrate(*trace, "runs.pstrace");
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  const sim::OpCost& read = fitted->model.ops.at("read");
  // (1000 × 300 + 50 000) / 1001 ns per call.
  EXPECT_NEAR(read.cpu.mean_ns + read.wait.mean_ns, 350'000.0 / 1001, 1.0);
}

TEST(CalibrationCostsTest, AWorkersCpuIsSharedBetweenItsFunctionAndItsPulls) {
  auto trace =
      TraceOf(R"(name: "t" source { name: "read" synthetic { records: -1 record_bytes: 8 } }
                          ops { name: "m" map { fn { cpu_work { duration: "1ms" } } num_parallel_calls: 1 } }
                          train_step { step_time: "1ms" })");
  trace->AddStage(Stage(0, "read", "synthetic", -1, false, record::kTraitSource));
  trace->AddStage(Stage(1, "m", "map", 0, true, record::kTraitParallelFunction));
  constexpr uint32_t kWorker = 2;
  trace->AddThread({kWorker, "m/0"});
  // Per element the worker pulls for 600 us and computes for 300 us of wall time, and got
  // half of it as CPU: 450 us, of which the function's share is a third.
  int64_t t = 0;
  for (uint64_t e = 1; e <= 400; ++e) {
    trace->AddEvent({t, t + 600 * kUs, e, 600 * kUs, kWorker, 0, EventKind::kCall, 0});
    trace->AddEvent({t + 600 * kUs, t + 900 * kUs, e, 0, kWorker, 1, EventKind::kWork, 0});
    trace->AddEvent(
        {t, t + 900 * kUs, 0, 450 * kUs, kWorker, record::kNoOp, EventKind::kCpuTime, 0});
    t += 900 * kUs;
  }
  trace->ExtendDuration(t);
  auto fitted = Calibrate(*trace, "busy.pstrace");
  ASSERT_TRUE(fitted.ok()) << fitted.status().message();
  const sim::OpCost& m = fitted->model.ops.at("m");
  EXPECT_NEAR(m.cpu.mean_ns + m.cpu_per_row.mean_ns, 150.0 * kUs, 1.0 * kUs);
}

// A map whose one worker computes each element for 40 us of CPU and then spends 5 us off
// its spans (handing it on, waking the consumer), while the consumer, waiting for it, uses
// 30 us of CPU an element that no op's work explains: a hand-off of 30 us, 5 of it the
// giver's. Without the worker's thread in the trace, the giver's part is left at its
// default, half.
TEST(CalibrationCostsTest, AHandOffsGiverPartIsItsWorkersTimeOutsideTheirSpans) {
  const auto fit = [](bool worker_named) {
    auto trace =
        TraceOf(R"(name: "t" source { name: "read" synthetic { records: -1 record_bytes: 8 } }
                   ops { name: "m" map { fn { cpu_work { duration: "40us" } } num_parallel_calls: 1 } }
                   train_step { step_time: "1ms" })");
    trace->AddStage(Stage(0, "read", "synthetic", -1, false, record::kTraitSource));
    trace->AddStage(Stage(1, "m", "map", 0, true, record::kTraitParallelFunction));
    constexpr uint32_t kWorker = 2, kConsumer = 3;
    if (worker_named) trace->AddThread({kWorker, "m/0"});
    trace->AddThread({kConsumer, "consumer"});
    int64_t t = 0;
    for (uint64_t e = 1; e <= 2000; ++e) {
      trace->AddEvent({t, t + 40 * kUs, e, 0, kWorker, 1, EventKind::kWork, 0});
      trace->AddEvent(
          {t, t + 45 * kUs, 0, 40 * kUs, kWorker, record::kNoOp, EventKind::kCpuTime, 0});
      trace->AddEvent({t, t + 45 * kUs, e, 0, kConsumer, 1, EventKind::kCall, 0});
      trace->AddEvent(
          {t, t + 45 * kUs, 0, 30 * kUs, kConsumer, record::kNoOp, EventKind::kCpuTime, 0});
      t += 45 * kUs;
    }
    trace->ExtendDuration(t);
    auto fitted = Calibrate(*trace, "handoff.pstrace");
    EXPECT_TRUE(fitted.ok()) << fitted.status().message();
    return fitted.ok() ? fitted->model : sim::CostModel{};
  };
  const sim::CostModel named = fit(true);
  EXPECT_NEAR(named.handoff_ns, 30 * kUs, 2 * kUs);
  EXPECT_NEAR(named.handoff_giver_ns, 5 * kUs, 1 * kUs);
  EXPECT_EQ(fit(false).handoff_giver_ns, -1);
}

}  // namespace
}  // namespace pipescope::session
