// Random live knob changes every few milliseconds for several seconds under load; the
// elements that come out must be exactly those of a sequential run (as a multiset, since
// the shuffle and the non-deterministic map reorder them).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "tests/engine/test_support.h"

namespace pipescope::engine {
namespace {

constexpr char kLoaded[] = R"(
source { range { start: 0 stop: 16000 } }
ops { name: "files" interleave {
  per_element { from_element {} }
  ops { name: "expand" repeat { count: 1 } }
  cycle_length: 4 block_length: 2 num_parallel_calls: 2 } }
ops { name: "work" map { fn { cpu_work { duration: "200us" } } num_parallel_calls: 2 } }
ops { name: "mix" shuffle { buffer_size: 64 seed: 11 } }
ops { name: "batch" batch { batch_size: 8 } }
ops { name: "pf1" prefetch { buffer_size: 2 } }
ops { name: "unbatch" unbatch {} }
ops { name: "loose" map { fn { identity {} } num_parallel_calls: 3 deterministic: false } }
ops { name: "pf2" prefetch { buffer_size: 1 } }
)";

constexpr char kSequential[] = R"(
source { range { start: 0 stop: 16000 } }
ops { name: "work" map { fn { identity {} } } }
)";

TEST(KnobStressTest, RandomLiveChangesLoseAndDuplicateNothing) {
  auto p = testing::MakePipeline(kLoaded);
  ASSERT_TRUE(p);
  std::atomic<bool> done{false};
  int changes = 0;
  std::thread tuner([&] {
    std::mt19937 rng(1234);
    const auto knobs = p->Knobs();
    while (!done.load()) {
      const auto& k = knobs[rng() % knobs.size()];
      if (k.knob == "batch_size" || k.op == "mix") continue;  // semantic knobs
      const int64_t lo = k.min, hi = std::min<int64_t>(k.max, 6);
      const int64_t v = lo + static_cast<int64_t>(rng() % static_cast<uint32_t>(hi - lo + 1));
      if (p->SetKnob(k.op, k.knob, v, "stress").ok()) ++changes;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  auto got = testing::Values(testing::Drain(*p));
  done = true;
  tuner.join();
  auto want = testing::DrainValues(kSequential);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got.size(), want.size());
  EXPECT_EQ(got, want);
  EXPECT_GT(changes, 100) << "the run was too short to stress the knobs";
}

TEST(KnobStressTest, CycleAndBlockLengthChangesLoseNothing) {
  // cycle_length and block_length change the order (as tf.data allows) but never the set.
  auto p = testing::MakePipeline(R"(
source { range { start: 0 stop: 400 } }
ops { name: "il" interleave {
  per_element { from_element {} }
  ops { repeat { count: 5 } }
  cycle_length: 3 block_length: 2 num_parallel_calls: 2 } }
)");
  std::mt19937 rng(7);
  std::vector<int64_t> got;
  while (true) {
    if (rng() % 8 == 0) {
      const char* knob =
          (rng() % 3 == 0) ? "num_parallel_calls" : (rng() % 2 ? "cycle_length" : "block_length");
      ASSERT_TRUE(p->SetKnob("il", knob, 1 + static_cast<int64_t>(rng() % 5), "stress").ok());
    }
    Element e;
    bool end = false;
    ASSERT_TRUE(p->GetNext(e, end).ok());
    if (end) break;
    got.push_back(e.value.scalar_int64());
  }
  std::sort(got.begin(), got.end());
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 400; ++i) want.insert(want.end(), 5, i);
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace pipescope::engine
