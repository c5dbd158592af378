// An op's buffer level, as recording keeps it: points when the level changes (at most one a
// millisecond per op, from whichever thread changed it), put in time order, and the last
// change always recorded by the collector's next wake.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/runtime/stage_stats.h"
#include "instrumentation/record/recorder.h"
#include "instrumentation/trace/model.h"

namespace pipescope::engine {
namespace {

using record::EventKind;

// Passes batches on to a model, noting whether each batch's level points came in time order.
class LevelOrderSink : public record::TraceSink {
 public:
  void Consume(const record::TraceBatch& batch, bool final) override {
    int64_t last = INT64_MIN;
    for (const auto& e : batch.events) {
      if (e.kind != EventKind::kBufferLevel) continue;
      if (e.start_ns < last) unordered.store(true);
      last = e.start_ns;
    }
    model.Consume(batch, final);
  }
  trace::Model model;
  std::atomic<bool> unordered{false};
};

TEST(BufferLevelRecordingTest, ChangesFromManyThreadsArriveInTimeOrderAndTheLastIsNotLost) {
  LevelOrderSink sink;
  record::Recorder recorder;
  recorder.AddSink(&sink);
  StageStats stats(7, "prefetch", "prefetch");
  stats.asynchronous = true;
  recorder.SetSampler([&](record::Recorder& r) { stats.RecordLevelIfChanged(r); });
  recorder.Start();
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3000; ++i) {
        stats.SetBuffered(i % 5 + t, &recorder);
        if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  for (auto& th : threads) th.join();
  // 42 comes within a millisecond of 41, so the op leaves it out; the collector has it, at a
  // wake or as the recording stops (however busy the machine).
  stats.SetBuffered(41, &recorder);
  stats.SetBuffered(42, &recorder);
  std::this_thread::sleep_for(std::chrono::nanoseconds(2 * record::kCollectorPeriodNs));
  recorder.Stop();

  EXPECT_FALSE(sink.unordered.load());
  const trace::Track* levels = sink.model.FindTrack({EventKind::kBufferLevel, 7, 0});
  ASSERT_NE(levels, nullptr);
  ASSERT_GE(levels->size(), 2u);
  EXPECT_EQ(levels->value(levels->size() - 1), 42u);
  // Recorded once: the collector's later wakes saw no change.
  EXPECT_NE(levels->value(levels->size() - 2), 42u);
  EXPECT_LT(levels->size(), 12000u);  // not every change: at most one a millisecond per op
}

// A synchronous op's level is not traced (the simulator traces asynchronous ops' only).
TEST(BufferLevelRecordingTest, ASynchronousOpsLevelIsNotRecorded) {
  trace::Model model;
  record::Recorder recorder;
  recorder.AddSink(&model);
  recorder.Start();
  StageStats stats(3, "shuffle", "shuffle");
  for (int i = 0; i < 100; ++i) stats.SetBuffered(i, &recorder);
  recorder.Stop();
  EXPECT_EQ(model.FindTrack({EventKind::kBufferLevel, 3, 0}), nullptr);
  EXPECT_EQ(stats.buffered.load(), 99);
}

}  // namespace
}  // namespace pipescope::engine
