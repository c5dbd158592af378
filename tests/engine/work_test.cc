#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <thread>

#include "engine/runtime/worker_threads.h"
#include "engine/work/call_overhead.h"
#include "engine/work/cpu_work.h"
#include "engine/work/normalize.h"
#include "engine/work/python_work.h"
#include "engine/work/unpack_bits.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {
namespace {

int64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

TEST(CpuWorkTest, BurnsAboutTheAskedCpuTime) {
  CpuWork work(5'000'000);
  CancellationToken c;
  Element e{1, Tensor::Int64(0), {}};
  int64_t best = INT64_MAX;
  for (int i = 0; i < 3; ++i) {  // best of three: preemption only adds time
    const int64_t t0 = ThreadCpuNs();
    ASSERT_TRUE(work.Apply(e, c).ok());
    best = std::min(best, ThreadCpuNs() - t0);
  }
  EXPECT_GT(best, 3'500'000);
  EXPECT_LT(best, 8'000'000);
}

// A map's call overhead is CPU on every call, batched or not, beside its function's work;
// its default is by function kind, and an unreadable one is an error naming the field.
TEST(CallOverheadTest, EveryCallPaysItOnceBesideTheFunction) {
  spec::MapOp map;
  map.mutable_fn()->mutable_cpu_work()->set_duration("1us");
  map.set_call_overhead("5ms");
  ASSERT_EQ(MapCallOverheadNs(map).value(), 5'000'000);
  auto made = MakeWorkFunction(map.fn());
  ASSERT_TRUE(made.ok());
  const auto fn = WithCallOverhead(std::move(made).value(), MapCallOverheadNs(map).value());
  EXPECT_EQ(fn->name(), "cpu_work") << "the function keeps its name";
  ASSERT_TRUE(fn->has_batched_form());
  CancellationToken c;
  int64_t one = INT64_MAX, batched = INT64_MAX;
  for (int i = 0; i < 3; ++i) {  // best of three: preemption only adds time
    Element e{1, Tensor::Int64(7), {}};
    int64_t t0 = ThreadCpuNs();
    ASSERT_TRUE(fn->Apply(e, c).ok());
    one = std::min(one, ThreadCpuNs() - t0);
    EXPECT_EQ(e.value.scalar_int64(), 7) << "the function's result is kept";
    Element batch{2, Tensor::Int64(0), {}};
    t0 = ThreadCpuNs();
    ASSERT_TRUE(fn->ApplyBatched(batch, 32, c).ok());
    batched = std::min(batched, ThreadCpuNs() - t0);
  }
  EXPECT_GT(one, 3'500'000);
  EXPECT_GT(batched, 3'500'000);
  EXPECT_LT(batched, 16'000'000) << "once for a batch of 32, not per row";

  spec::MapOp python;
  python.mutable_fn()->mutable_python()->set_duration("1ms");
  EXPECT_EQ(MapCallOverheadNs(python).value(), kDefaultPythonCallNs);
  spec::MapOp native;
  native.mutable_fn()->mutable_cpu_work()->set_duration("1ms");
  EXPECT_EQ(MapCallOverheadNs(native).value(), 0);
  native.set_call_overhead("20");
  const auto bad = MapCallOverheadNs(native);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("call_overhead"), std::string::npos)
      << bad.status().message();
}

// Whether the interpreter lock was ever seen held while `fn` ran on another thread: the
// watcher tries to take it for as long as the call lasts.
bool LockSeenHeldDuring(const PythonWork& fn) {
  std::atomic<bool> done{false};
  std::thread call([&] {
    Element e;
    CancellationToken cancellation;
    EXPECT_TRUE(fn.Apply(e, cancellation).ok());
    done = true;
  });
  bool seen = false;
  while (!done) {
    if (InterpreterLock().try_lock()) {
      InterpreterLock().unlock();
    } else {
      seen = true;
    }
    std::this_thread::yield();
  }
  call.join();
  return seen;
}

// The lock is real: pure Python work holds it for its whole call, work that releases it
// (gil_share 0) never takes it.
TEST(PythonWorkTest, HoldsTheInterpreterLockForItsShare) {
  EXPECT_TRUE(LockSeenHeldDuring(PythonWork(200'000'000, 1.0)));
  EXPECT_FALSE(LockSeenHeldDuring(PythonWork(100'000'000, 0.0)));
}

// A call's wait (time.sleep, a read from storage) lasts its time with the lock released:
// the call takes at least the wait (a lower bound, which a busy machine only lengthens), and
// the lock is never seen held meanwhile. Cancelled, it stops waiting.
TEST(PythonWorkTest, WaitsWithTheInterpreterLockReleased) {
  const PythonWork sleeps(0, 1.0, 150'000'000);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(LockSeenHeldDuring(sleeps));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(ms, 0.9 * 150);
  CancellationToken cancelled;
  cancelled.Cancel();
  Element e;
  EXPECT_FALSE(sleeps.Apply(e, cancelled).ok());
  EXPECT_FALSE(CpuWork(1000, 150'000'000).Apply(e, cancelled).ok());
}

// A function whose call makes a sample of a size (output_bytes: Python's, or work modelled by
// its decode that ends in a resize) returns a new array of that size, one row each when
// called on a batch; without it, what the work made stays.
TEST(SizedOutputTest, ReturnsAnArrayOfItsOutputBytes) {
  auto make = [](const std::string& text) {
    spec::WorkFunction fn;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &fn)) << text;
    auto work = MakeWorkFunction(fn);
    EXPECT_TRUE(work.ok()) << work.status().ToString();
    return std::move(*work);
  };
  CancellationToken cancel;
  Element e;
  e.id = 7;
  e.value = Tensor::Int64(3);
  ASSERT_TRUE(make("python { duration: \"1us\" } output_bytes: 4096")->Apply(e, cancel).ok());
  EXPECT_EQ(e.value.dtype(), DType::kUint8);
  EXPECT_EQ(e.value.byte_size(), 4096u);
  ASSERT_TRUE(
      make("python { duration: \"1us\" } output_bytes: 100")->ApplyBatched(e, 8, cancel).ok());
  EXPECT_EQ(e.value.shape(), (Shape{8, 100}));
  // cpu_work standing in for a decode whose function resizes to 224×224 (float32).
  Element decoded;
  decoded.value = Tensor::Int64(3);
  ASSERT_TRUE(make("cpu_work { duration: \"1us\" one_element_call: \"decode_jpeg\" } "
                   "output_bytes: 602112")
                  ->Apply(decoded, cancel)
                  .ok());
  EXPECT_EQ(decoded.value.byte_size(), 602'112u);
  Element kept;
  kept.value = Tensor::Int64(3);
  ASSERT_TRUE(make("python { duration: \"1us\" }")->Apply(kept, cancel).ok());
  EXPECT_EQ(kept.value.scalar_int64(), 3);
}

// Four threads of pure Python take turns: together they take at least the sum of their
// calls (a lower bound, which a busy machine only lengthens).
TEST(PythonWorkTest, ThreadsOfPurePythonTakeTurns) {
  const PythonWork fn(20'000'000, 1.0);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      Element e;
      CancellationToken cancellation;
      EXPECT_TRUE(fn.Apply(e, cancellation).ok());
    });
  }
  for (auto& t : threads) t.join();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(ms, 0.8 * 4 * 20) << "the calls ran under the lock at once";
}

// A worker process has its own lock: pure Python running in one (PythonProcessScope) never
// holds the main process's, and the main process's Python never holds the worker's.
// Threads an op starts run in the process of the thread that started them: a worker
// process's map threads take its lock, not the main process's.
TEST(PythonWorkTest, ThreadsStartedInAProcessRunInIt) {
  PythonProcess worker;
  std::mutex* seen = nullptr;
  {
    const PythonProcessScope in_worker(worker);
    WorkerThreads threads;
    threads.Grow(1, "t", [&](int) { seen = &InterpreterLock(); });
    threads.JoinAll();
  }
  EXPECT_EQ(seen, &worker.interpreter_lock());
  WorkerThreads main_threads;
  main_threads.Grow(1, "t", [&](int) { seen = &InterpreterLock(); });
  main_threads.JoinAll();
  EXPECT_EQ(seen, &InterpreterLock()) << "started from the main process: its lock";
}

TEST(PythonWorkTest, AWorkerProcessHasItsOwnInterpreterLock) {
  PythonProcess worker;
  const PythonWork fn(100'000'000, 1.0);
  std::atomic<bool> done{false};
  std::thread call([&] {
    PythonProcessScope in_worker(worker);
    Element e;
    CancellationToken cancellation;
    EXPECT_TRUE(fn.Apply(e, cancellation).ok());
    done = true;
  });
  bool main_lock_seen_held = false;
  bool worker_lock_seen_held = false;
  while (!done) {
    if (InterpreterLock().try_lock()) {
      InterpreterLock().unlock();
    } else {
      main_lock_seen_held = true;
    }
    if (worker.interpreter_lock().try_lock()) {
      worker.interpreter_lock().unlock();
    } else {
      worker_lock_seen_held = true;
    }
    std::this_thread::yield();
  }
  call.join();
  EXPECT_FALSE(main_lock_seen_held);
  EXPECT_TRUE(worker_lock_seen_held);
}

TEST(UnpackBitsTest, UnpacksMostSignificantBitFirst) {
  Tensor packed(DType::kUint8, Shape{2});
  packed.data<uint8_t>()[0] = 0b10000001;
  packed.data<uint8_t>()[1] = 0b01000000;
  auto out = UnpackBitsOf(packed);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->shape(), (Shape{2, 8}));
  const uint8_t want[16] = {1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(0, std::memcmp(out->data<uint8_t>(), want, 16));
}

TEST(UnpackBitsTest, BitboardsUnpackToSixtyFourSquares) {
  Tensor boards(DType::kInt64, Shape{12});
  boards.data<int64_t>()[0] = static_cast<int64_t>(0x8000000000000001ull);
  auto out = UnpackBitsOf(boards);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->shape(), (Shape{12, 64}));
  EXPECT_EQ(out->data<uint8_t>()[0], 1);
  EXPECT_EQ(out->data<uint8_t>()[63], 1);
  EXPECT_EQ(out->data<uint8_t>()[64], 0);
}

TEST(UnpackBitsTest, BatchedFormEqualsPerElementForm) {
  Tensor a = Tensor::String(std::string("\x0f\xf0", 2));
  Tensor b = Tensor::String(std::string("\xaa\x55", 2));
  const Tensor* rows[] = {&a, &b};
  Element batch{1, *Tensor::Stack(rows), {}};
  UnpackBits fn;
  CancellationToken c;
  ASSERT_TRUE(fn.ApplyBatched(batch, 2, c).ok());
  EXPECT_EQ(batch.value.shape(), (Shape{2, 16}));
  Element single{2, b, {}};
  ASSERT_TRUE(fn.Apply(single, c).ok());
  EXPECT_EQ(batch.value.Row(1), single.value);
}

TEST(UnpackBitsTest, UnequalRecordLengthsAreAnError) {
  Tensor a = Tensor::String("ab");
  Tensor b = Tensor::String("abc");
  const Tensor* rows[] = {&a, &b};
  auto out = UnpackBitsOf(*Tensor::Stack(rows));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("record 1 has 3 bytes"), std::string::npos);
}

TEST(NormalizeTest, ScalesToFloat) {
  Tensor t(DType::kUint8, Shape{3});
  t.data<uint8_t>()[0] = 0;
  t.data<uint8_t>()[1] = 128;
  t.data<uint8_t>()[2] = 255;
  Element e{1, t, {}};
  CancellationToken c;
  ASSERT_TRUE(Normalize(128, 2).Apply(e, c).ok());
  EXPECT_EQ(e.value.dtype(), DType::kFloat32);
  EXPECT_FLOAT_EQ(e.value.data<float>()[0], -64);
  EXPECT_FLOAT_EQ(e.value.data<float>()[1], 0);
  EXPECT_FLOAT_EQ(e.value.data<float>()[2], 63.5);
}

TEST(PredicateTest, KeepFractionKeepsAboutThatShare) {
  spec::Predicate p;
  p.mutable_keep_fraction()->set_fraction(0.25);
  auto pred = MakePredicate(p);
  ASSERT_TRUE(pred.ok());
  int kept = 0;
  for (int i = 0; i < 10000; ++i) kept += *(*pred)->Keep(Element{0, Tensor::Int64(i), {}});
  EXPECT_NEAR(kept, 2500, 250);
}

}  // namespace
}  // namespace pipescope::engine
