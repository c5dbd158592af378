// Order advice: a filter moved ahead of work it would waste, a map with a batched form
// vectorised by batching first, a prefetch added at the end; never a move that changes
// the output.
#include "engine/tuning/order_advice.h"

#include <gtest/gtest.h>

#include "engine/core/duration.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::engine {
namespace {

spec::PipelineSpec Spec(const std::string& ops) {
  auto spec =
      ParseSpecText("source { name: \"ids\" range { start: 0 stop: 100 } } " + ops, "advice");
  EXPECT_TRUE(spec.ok()) << spec.status().message();
  return *spec;
}

trace::StageFigures Figures(const std::string& name, double self_ns, double per_s) {
  trace::StageFigures f;
  f.name = name;
  f.self_ns_per_element = self_ns;
  f.elements_per_s = per_s;
  return f;
}

std::vector<std::string> OpNames(const spec::PipelineSpec& spec) {
  std::vector<std::string> names;
  for (const auto& op : spec.ops()) names.push_back(op.name());
  return names;
}

TEST(OrderAdviceTest, AFilterMovesAheadOfTheWorkItWastes) {
  const auto spec = Spec(R"(
    ops { name: "decode" map { fn { cpu_work { duration: "1ms" } } } }
    ops { name: "keep" filter { predicate { mod_equals { modulus: 4 } } } }
    ops { name: "batch" batch { batch_size: 8 } }
    ops { name: "prefetch" prefetch { buffer_size: 1 } })");
  trace::RangeAnalysis a;
  a.stages = {Figures("ids", 100, 400), Figures("decode", 1e6, 400), Figures("keep", 50, 100),
              Figures("batch", 10, 12.5)};
  const auto advice = AdviseOrder(spec, a);
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_EQ(advice[0].change, "move filter 'keep' before 'decode'");
  EXPECT_NE(advice[0].why.find("1000 µs of map work"), std::string::npos) << advice[0].why;
  EXPECT_NE(advice[0].why.find("passes 25%"), std::string::npos) << advice[0].why;
  EXPECT_EQ(OpNames(advice[0].spec),
            (std::vector<std::string>{"keep", "decode", "batch", "prefetch"}));
}

TEST(OrderAdviceTest, AFilterReadingTheMapsOutputStaysWhereItIs) {
  const auto spec = Spec(R"(
    ops { name: "unpack" map { fn { unpack_bits {} } } }
    ops { name: "keep" filter { predicate { mod_equals { modulus: 4 } } } }
    ops { name: "prefetch" prefetch { buffer_size: 1 } })");
  trace::RangeAnalysis a;
  a.stages = {Figures("unpack", 1e6, 100), Figures("keep", 50, 25)};
  EXPECT_TRUE(AdviseOrder(spec, a).empty());
}

TEST(OrderAdviceTest, AMapWithABatchedFormIsVectorised) {
  const auto spec = Spec(R"(
    ops { name: "unpack" map { fn { unpack_bits {} } num_parallel_calls: 2 } }
    ops { name: "batch" batch { batch_size: 1024 } }
    ops { name: "prefetch" prefetch { buffer_size: 2 } })");
  trace::RangeAnalysis a;
  a.stages = {Figures("unpack", 800, 1e6)};
  const auto advice = AdviseOrder(spec, a);
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_EQ(advice[0].change, "batch before map 'unpack' (vectorise it)");
  EXPECT_NE(advice[0].why.find("0.80 µs per element"), std::string::npos) << advice[0].why;
  EXPECT_EQ(OpNames(advice[0].spec), (std::vector<std::string>{"batch", "unpack", "prefetch"}));
}

// A Python function costs what it costs per call whatever it is given: its cost on a whole
// batch is a rewrite no measurement knows, so moving it after batch is not advised.
TEST(OrderAdviceTest, APythonMapIsNotVectorised) {
  const auto spec = Spec(R"(
    ops { name: "load" map { fn { python { duration: "8ms" } } } }
    ops { name: "batch" batch { batch_size: 32 } }
    ops { name: "prefetch" prefetch { buffer_size: 2 } })");
  trace::RangeAnalysis a;
  a.stages = {Figures("load", 8e6, 100)};
  EXPECT_TRUE(AdviseOrder(spec, a).empty());
}

// What is known of a Python map's cost on a batch is its call (py_function's bridge): with
// a call_overhead beyond the interpreter's own, calling it once per batch is tried, its own
// Python taken as the same per row (8 us x 32 rows a call).
TEST(OrderAdviceTest, APythonMapDominatedByItsCallIsCalledOncePerBatch) {
  const auto spec = Spec(R"(
    ops { name: "parse" map { fn { python { duration: "8us" } } call_overhead: "40us" } }
    ops { name: "batch" batch { batch_size: 32 } }
    ops { name: "prefetch" prefetch { buffer_size: 2 } })");
  trace::RangeAnalysis a;
  a.stages = {Figures("parse", 48e3, 2e4)};
  const auto advice = AdviseOrder(spec, a);
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_EQ(advice[0].kind, "vectorise");
  EXPECT_EQ(advice[0].change, "batch before map 'parse' and call it once per batch");
  EXPECT_NE(advice[0].why.find("pays its call (40 µs)"), std::string::npos) << advice[0].why;
  EXPECT_EQ(OpNames(advice[0].spec), (std::vector<std::string>{"batch", "parse", "prefetch"}));
  const auto& moved = advice[0].spec.ops(1).map();
  EXPECT_EQ(ParseDurationNs(moved.fn().python().duration()).value(), 8'000 * 32);
  EXPECT_EQ(moved.call_overhead(), "40us") << "still paid, once a call";
  EXPECT_EQ(advice[0].why.find("random draws"), std::string::npos) << advice[0].why;
  // A function that draws (tensorflow#32454's tf.random.uniform(shape=())) draws once a call
  // on a batch: said, so that its rows do not all get the same draw.
  const auto random = Spec(R"(
    ops { name: "parse" map { fn { python { duration: "8us" } } call_overhead: "40us" random: true } }
    ops { name: "batch" batch { batch_size: 32 } }
    ops { name: "prefetch" prefetch { buffer_size: 2 } })");
  const auto drawn = AdviseOrder(random, a);
  ASSERT_EQ(drawn.size(), 1u);
  EXPECT_NE(drawn[0].why.find("Its random draws are then one a call"), std::string::npos)
      << drawn[0].why;
}

TEST(OrderAdviceTest, APipelineWithoutAFinalPrefetchGetsOne) {
  const auto spec = Spec(R"(ops { name: "wait" map { fn { io_wait { duration: "1ms" } } } }
                            ops { name: "batch" batch { batch_size: 4 } })");
  const auto advice = AdviseOrder(spec, {});
  ASSERT_EQ(advice.size(), 1u) << "io_wait has no batched form: only the prefetch";
  EXPECT_EQ(advice[0].change, "add prefetch(2) at the end");
  EXPECT_TRUE(advice[0].spec.ops(2).has_prefetch());
}

// The training loop's epochs (`for epoch in range(2): for x in ds:`, read as a repeat) are no
// call of the code: the prefetch goes at the end of the dataset, before them, and with the
// code's own prefetch there none is added (the tf.data guide's prefetching section). A repeat
// of the code's own (`ds.repeat()`) takes one after it.
TEST(OrderAdviceTest, APrefetchGoesBeforeTheTrainingLoopsEpochs) {
  const std::string map = R"(ops { name: "wait" map { fn { io_wait { duration: "1ms" } } } })";
  const std::string epochs = R"(ops { name: "epochs" repeat { count: 2 training_loop: true } })";
  const auto advice = AdviseOrder(Spec(map + epochs), {});
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_EQ(advice[0].change,
            "add prefetch(2) at the end of the dataset, before the training loop");
  EXPECT_EQ(OpNames(advice[0].spec), (std::vector<std::string>{"wait", "prefetch_last", "epochs"}));
  // Made again after another change (a cache added after the map), it still goes before them.
  auto cached = Spec(map + R"(ops { name: "cache" cache {} })" + epochs);
  auto again = ApplyEdit(cached, advice[0].edit);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(OpNames(*again),
            (std::vector<std::string>{"wait", "cache", "prefetch_last", "epochs"}));

  const auto prefetched = AdviseOrder(
      Spec(map + R"(ops { name: "prefetch" prefetch { buffer_size: -1 } })" + epochs), {});
  for (const auto& a : prefetched) EXPECT_NE(a.kind, "prefetch") << a.change;

  const auto own = AdviseOrder(Spec(map + R"(ops { name: "repeat" repeat {} })"), {});
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].change, "add prefetch(2) at the end");
  EXPECT_EQ(OpNames(own[0].spec), (std::vector<std::string>{"wait", "repeat", "prefetch_last"}));
}

// A DataLoader fetches ahead in its worker processes; what a PyTorch user tunes is its
// num_workers and prefetch_factor, not a tf.data prefetch after it.
TEST(OrderAdviceTest, NoPrefetchIsAddedAfterADataLoader) {
  const auto spec = Spec(R"(ops { name: "loader" dataloader { batch_size: 4
                              getitem { python { duration: "1ms" } } } })");
  for (const auto& a : AdviseOrder(spec, {})) EXPECT_NE(a.kind, "prefetch") << a.change;
}

}  // namespace
}  // namespace pipescope::engine
