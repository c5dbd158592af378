// The simulation's sink thread: every batch reaches every sink whole and in order, the last
// marked final, on a thread other than the simulation's; a final hand-over returns only
// once the sinks have everything; a simulation that ends without one loses nothing.
#include "engine/sim/sink_thread.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace pipescope::sim {
namespace {

struct Received {
  std::vector<int64_t> times;
  std::vector<size_t> sizes;
  std::vector<bool> finals;
  std::thread::id thread;
};

class RecordingSink : public record::TraceSink {
 public:
  void Consume(const record::TraceBatch& batch, bool final) override {
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // slower than the producer
    got.times.push_back(batch.time_ns);
    got.sizes.push_back(batch.events.size());
    got.finals.push_back(final);
    got.thread = std::this_thread::get_id();
  }
  Received got;
};

record::TraceBatch BatchOf(size_t events, int64_t time) {
  record::TraceBatch b;
  b.events.resize(events);
  b.time_ns = time;
  return b;
}

TEST(SinkThreadTest, DeliversEveryBatchInOrderToEverySinkOffTheCallersThread) {
  RecordingSink a, b;
  SinkThread sinks({&a, &b});
  for (int i = 0; i < 20; ++i) {
    record::TraceBatch batch = BatchOf(static_cast<size_t>(i + 1), i * 100);
    sinks.Hand(batch, i == 19);
    EXPECT_TRUE(batch.empty());  // taken, and the caller's batch is ready for the next
  }
  // The final hand-over has returned: both sinks have all 20.
  for (const RecordingSink* s : {&a, &b}) {
    ASSERT_EQ(s->got.times.size(), 20u);
    for (size_t i = 0; i < 20; ++i) {
      EXPECT_EQ(s->got.times[i], static_cast<int64_t>(i) * 100);
      EXPECT_EQ(s->got.sizes[i], i + 1);
      EXPECT_EQ(s->got.finals[i], i == 19);
    }
    EXPECT_NE(s->got.thread, std::this_thread::get_id());
  }
}

TEST(SinkThreadTest, EndingWithoutAFinalBatchStillDeliversWhatWasHandedOver) {
  RecordingSink sink;
  {
    SinkThread sinks({&sink});
    for (int i = 0; i < 8; ++i) {
      record::TraceBatch batch = BatchOf(3, i);
      sinks.Hand(batch, false);
    }
  }
  EXPECT_EQ(sink.got.times.size(), 8u);
}

}  // namespace
}  // namespace pipescope::sim
