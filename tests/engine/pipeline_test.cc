// The control interface: live knobs, reorders, cancellation.
#include <gtest/gtest.h>

#include <future>
#include <map>
#include <thread>

#include "engine/spec/spec_loader.h"
#include "tests/engine/test_support.h"

namespace pipescope::engine {
namespace {

using testing::Drain;
using testing::MakePipeline;
using testing::Spec;
using testing::Values;

// The events as the collector hands them on, before the model clamps anything.
class RawEvents : public record::TraceSink {
 public:
  void Consume(const record::TraceBatch& batch, bool /*final*/) override {
    events.insert(events.end(), batch.events.begin(), batch.events.end());
  }
  std::vector<record::TraceEvent> events;
};

constexpr char kTwoKnobs[] =
    "source { range { start: 0 stop: 100 } }\n"
    "ops { name: \"decode\" map { fn { identity {} } num_parallel_calls: 1 } }\n"
    "ops { name: \"prefetch\" prefetch { buffer_size: AUTOTUNE } }\n";

TEST(PipelineTest, ListsLiveKnobsWithRangesAndAutotune) {
  auto p = MakePipeline(kTwoKnobs);
  auto knobs = p->Knobs();
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(knobs[0].op, "decode");
  EXPECT_EQ(knobs[0].knob, "num_parallel_calls");
  EXPECT_EQ(knobs[0].value, 1);
  EXPECT_FALSE(knobs[0].autotune);
  EXPECT_EQ(knobs[1].op, "prefetch");
  EXPECT_TRUE(knobs[1].autotune);
  EXPECT_GE(knobs[1].value, 1);
}

TEST(PipelineTest, SetKnobRecordsWhoChangedWhatFromWhatToWhat) {
  auto p = MakePipeline(kTwoKnobs);
  ASSERT_TRUE(p->SetKnob("decode", "num_parallel_calls", 3, "user").ok());
  auto changes = p->KnobChanges();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].change.op, "decode");
  EXPECT_EQ(changes[0].change.from, 1);
  EXPECT_EQ(changes[0].change.to, 3);
  EXPECT_EQ(changes[0].change.who, "user");
  EXPECT_EQ(p->Knobs()[0].value, 3);
}

TEST(PipelineTest, SetKnobErrorsNameTheKnobsThatExist) {
  auto p = MakePipeline(kTwoKnobs);
  Status s = p->SetKnob("decod", "num_parallel_calls", 2, "user");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("decode.num_parallel_calls, prefetch.buffer_size"), std::string::npos)
      << s.message();
  s = p->SetKnob("decode", "num_parallel_calls", 0, "user");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("[1, 256]"), std::string::npos);
}

TEST(PipelineTest, AutotuneParallelismStartsFromTheCpuBudget) {
  auto p = Pipeline::Create(
      Spec("source { range { stop: 5 } } budget { cpu_cores: 3 } "
           "ops { name: \"m\" map { fn { identity {} } num_parallel_calls: AUTOTUNE } }"),
      {});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Knobs()[0].value, 3);
  EXPECT_TRUE((*p)->Knobs()[0].autotune);
}

TEST(PipelineTest, ReorderRebuildsAndContinuesKeepingKnobValues) {
  auto p = MakePipeline(kTwoKnobs);
  ASSERT_TRUE(p->SetKnob("decode", "num_parallel_calls", 2, "user").ok());
  auto first = Drain(*p, 10);
  ASSERT_EQ(first.size(), 10u);
  // Move prefetch before decode and add a filter.
  spec::PipelineSpec reordered = p->spec();
  reordered.mutable_ops()->SwapElements(0, 1);
  auto* filter = reordered.add_ops();
  filter->set_name("evens");
  filter->mutable_filter()->mutable_predicate()->mutable_mod_equals()->set_modulus(2);
  ASSERT_TRUE(p->Reorder(reordered).ok());
  auto rest = Values(Drain(*p));
  ASSERT_EQ(rest.size(), 50u);  // the new pipeline reads its source from the start
  EXPECT_EQ(rest[1], 2);
  EXPECT_EQ(p->spec().ops(0).name(), "prefetch");
  EXPECT_EQ(p->Knobs()[1].op, "decode");
  EXPECT_EQ(p->Knobs()[1].value, 2);  // kept across the rebuild
  EXPECT_EQ(p->RebuildTimes().size(), 1u);
}

TEST(PipelineTest, ReorderWakesAConsumerBlockedInTheOldPipeline) {
  auto p = MakePipeline(
      "source { range { stop: 1000 } }\n"
      "ops { name: \"slow\" map { fn { io_wait { duration: \"20s\" } } num_parallel_calls: 1 } "
      "}\n");
  std::thread reorderer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    spec::PipelineSpec fast = p->spec();
    fast.mutable_ops(0)->mutable_map()->mutable_fn()->mutable_identity();
    ASSERT_TRUE(p->Reorder(fast).ok());
  });
  Element e;
  bool end = false;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = p->GetNext(e, end);
  reorderer.join();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(e.value.scalar_int64(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(PipelineTest, ShrinkingParallelismWhileTheConsumerHoldsABatchKeepsFlowing) {
  // Regression: workers that slept on a capacity computed for high parallelism must be
  // woken when the consumer has returned its batch, or both sides wait forever.
  auto p = MakePipeline(
      "source { range { stop: 20000 } }\n"
      "ops { name: \"m\" map { fn { identity {} } num_parallel_calls: 200 } }\n");
  // Let the 200 workers fill their whole buffer (capacity 400), then take it in one go:
  // the consumer now holds far more than the capacity of parallelism 1 (256).
  ASSERT_EQ(Drain(*p, 1).size(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(Drain(*p, 499).size(), 499u);
  ASSERT_TRUE(p->SetKnob("m", "num_parallel_calls", 1, "test").ok());
  auto rest = std::async(std::launch::async, [&] { return Drain(*p).size(); });
  ASSERT_EQ(rest.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "stalled";
  EXPECT_EQ(rest.get(), 19500u);
}

TEST(PipelineTest, AnInvalidReorderIsRejectedAndTheRunGoesOn) {
  auto p = MakePipeline(kTwoKnobs);
  spec::PipelineSpec bad = p->spec();
  bad.mutable_ops(1)->mutable_prefetch()->set_buffer_size(-7);
  EXPECT_FALSE(p->Reorder(bad).ok());
  EXPECT_EQ(Drain(*p).size(), 100u);
}

// A chain of calls reads the clock once for its start: an op's first pull starts when the
// op's call did. Every call of an op on a thread still starts after its previous call
// ended: a start handed on never outlives the call that handed it on (cache replays make
// no pull; the prefetch's worker calls the repeat again and again).
TEST(PipelineTest, RecordedCallsOfAnOpNeverOverlapTheirPredecessors) {
  record::Recorder recorder;
  RawEvents sink;
  recorder.AddSink(&sink);
  Pipeline::Options options;
  options.recorder = &recorder;
  auto p = Pipeline::Create(Spec("source { name: \"src\" range { start: 0 stop: 200 } }\n"
                                 "ops { name: \"m\" map { fn { identity {} } } }\n"
                                 "ops { name: \"c\" cache {} }\n"
                                 "ops { name: \"r\" repeat { count: 3 } }\n"
                                 "ops { name: \"pf\" prefetch { buffer_size: 2 } }\n"),
                            options);
  ASSERT_TRUE(p.ok()) << p.status().message();
  recorder.Start();
  EXPECT_EQ(Drain(**p).size(), 600u);
  p->reset();
  recorder.Stop();
  std::map<std::pair<uint32_t, uint16_t>, int64_t> last_end;  // (thread, op) -> end
  size_t calls = 0;
  for (const record::TraceEvent& e : sink.events) {
    if (e.kind != record::EventKind::kCall && e.kind != record::EventKind::kCallEnd) continue;
    ++calls;
    EXPECT_LE(e.start_ns, e.end_ns);
    auto [it, first] = last_end.try_emplace({e.thread, e.op}, e.end_ns);
    if (!first) {
      EXPECT_GE(e.start_ns, it->second) << "op " << e.op << " on thread " << e.thread;
      it->second = e.end_ns;
    }
  }
  EXPECT_GT(calls, 600u * 2);
}

}  // namespace
}  // namespace pipescope::engine
