// The recording path: CRC-32C, the per-thread ring, the recorder and its collector.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#endif

#include "instrumentation/record/crc32c.h"
#include "instrumentation/record/populate_pages.h"
#include "instrumentation/record/recorder.h"
#include "instrumentation/trace/model.h"

namespace pipescope::record {
namespace {

// A started recorder with a trace model as its sink (declared first: it outlives the
// recorder, whose Stop still hands it a batch).
struct Recording {
  trace::Model model;
  Recorder recorder;
  Recording() {
    recorder.AddSink(&model);
    recorder.Start();
  }
};

TEST(Crc32cTest, MatchesTheStandardCheckValues) {
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32c("", 0), 0u);
  const std::string zeros(32, '\0');
  EXPECT_EQ(Crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);  // RFC 3720, B.4
  const std::string ones(32, '\xff');
  EXPECT_EQ(Crc32c(ones.data(), ones.size()), 0x62A8AB43u);
}

TEST(Crc32cTest, CanBeComputedInPieces) {
  std::mt19937 rng(1);
  std::string data(1000, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  for (size_t cut : {0u, 1u, 7u, 8u, 13u, 500u, 999u}) {
    const uint32_t whole = Crc32c(data.data(), data.size());
    const uint32_t first = Crc32c(data.data(), cut);
    EXPECT_EQ(Crc32c(data.data() + cut, data.size() - cut, first), whole) << "cut at " << cut;
  }
}

TEST(Crc32cTest, LongBuffersMatchTheByteAtATimeResult) {
  // Long buffers take the three-stream path; pieces under 12 KiB take the simple one.
  std::mt19937 rng(2);
  std::string data(100'003, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  uint32_t pieces = 0;
  for (size_t at = 0; at < data.size(); at += 997) {
    pieces = Crc32c(data.data() + at, std::min<size_t>(997, data.size() - at), pieces);
  }
  EXPECT_EQ(Crc32c(data.data(), data.size()), pieces);
  const std::string zeros(3 * 4096 * 5, '\0');
  uint32_t zero_pieces = 0;
  for (size_t at = 0; at < zeros.size(); at += 96)
    zero_pieces = Crc32c(zeros.data() + at, 96, zero_pieces);
  EXPECT_EQ(Crc32c(zeros.data(), zeros.size()), zero_pieces);
}

// Each way this CPU has (the table, the crc32 instruction's streams, carry-less folding)
// gives the table's value, from any starting value, at the lengths where one path hands
// over to another or folding's rounds and lanes end.
TEST(Crc32cTest, EveryPathThisCpuHasGivesTheTablesValue) {
  std::mt19937 rng(3);
  std::string data(70'000, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 1300; ++n) lengths.push_back(n);
  for (size_t n : {4095u, 4096u, 12287u, 12288u, 12289u, 65536u, 65552u, 69999u})
    lengths.push_back(n);
  const auto fastest = static_cast<int>(FastestCrc32cPath());
  for (int k = 1; k <= fastest; ++k) {
    const auto path = static_cast<Crc32cPath>(k);
    for (size_t offset : {0u, 1u, 5u}) {
      for (size_t n : lengths) {
        const uint32_t start = static_cast<uint32_t>(n * 2654435761u);
        const char* p = data.data() + offset;
        ASSERT_EQ(Crc32cWith(path, p, n, start), Crc32cWith(Crc32cPath::kTable, p, n, start))
            << Crc32cPathName(path) << ", " << n << " bytes at offset " << offset;
      }
    }
  }
  // The fastest path is the one Crc32c takes.
  EXPECT_EQ(Crc32c(data.data(), data.size()),
            Crc32cWith(FastestCrc32cPath(), data.data(), data.size()));
}

TEST(EventRingTest, DeliversInOrderAndCountsWhatDidNotFit) {
  EventRing ring;
  const size_t n = EventRing::kCapacity + 10;
  for (size_t i = 0; i < n; ++i) ring.Push(Event{i, i, i, 0, 0, EventKind::kWork, 0});
  EXPECT_EQ(ring.dropped(), 10u);
  uint64_t expected = 0;
  const size_t drained = ring.Drain([&](const Event& e) { EXPECT_EQ(e.element, expected++); });
  EXPECT_EQ(drained, EventRing::kCapacity);
  ring.Push(Event{7, 7, 7, 0, 0, EventKind::kWork, 0});
  EXPECT_EQ(ring.Drain([](const Event& e) { EXPECT_EQ(e.element, 7u); }), 1u);
}

TEST(EventRingTest, AConcurrentDrainLosesNothingItDidNotCount) {
  EventRing ring;
  constexpr uint64_t kEvents = 2'000'000;
  std::atomic<bool> done{false};
  uint64_t received = 0, last = 0;
  bool ordered = true;
  std::thread consumer([&] {
    auto take = [&](const Event& e) {
      ordered &= received == 0 || e.element > last;
      last = e.element;
      ++received;
    };
    while (!done.load()) ring.Drain(take);
    ring.Drain(take);
  });
  for (uint64_t i = 1; i <= kEvents; ++i) ring.Push(Event{i, i, i, 0, 0, EventKind::kWork, 0});
  done = true;
  consumer.join();
  EXPECT_TRUE(ordered);
  EXPECT_EQ(received + ring.dropped(), kEvents);
}

// A ring's pages are present only a window ahead of its producer: a thread that records
// little costs little memory, and the producer does not meet page faults.
TEST(EventRingTest, PagesArePresentAWindowAheadOfTheProducer) {
  EventRing ring;
  EXPECT_EQ(ring.populated(), EventRing::kPopulateAhead);
  const size_t n = EventRing::kPopulateAhead / 2 + 3;
  for (size_t i = 0; i < n; ++i) ring.Push(Event{i, i, i, 0, 0, EventKind::kWork, 0});
  ring.PopulateAhead();
  EXPECT_EQ(ring.populated(), n + EventRing::kPopulateAhead);
  for (size_t i = n; i < EventRing::kCapacity; ++i) {
    ring.Push(Event{i, i, i, 0, 0, EventKind::kWork, 0});
  }
  ring.PopulateAhead();
  EXPECT_EQ(ring.populated(), EventRing::kCapacity);
  uint64_t expected = 0;
  EXPECT_EQ(ring.Drain([&](const Event& e) { EXPECT_EQ(e.element, expected++); }),
            EventRing::kCapacity);
}

// A producer that wrote more than the minimum window between two drains gets twice what it
// wrote ahead of it: at the collector's 50 ms, a busy thread would otherwise meet page
// faults itself.
TEST(EventRingTest, ABusyProducersWindowIsTwiceWhatItWroteSinceTheLastDrain) {
  EventRing ring;
  const size_t n = EventRing::kPopulateAhead * 2;
  for (size_t i = 0; i < n; ++i) {
    ring.Push(Event{i, i, i, 0, 0, EventKind::kWork, 0});
    if (i % 1024 == 0) ring.PopulateAhead();  // the window the producer is writing in
  }
  EXPECT_EQ(ring.Drain([](const Event&) {}), n);
  ring.PopulateAhead();
  EXPECT_EQ(ring.populated(), n + 2 * n);
}

#if defined(__linux__)
// Which of the pages of [p, p + bytes) are resident.
std::vector<bool> ResidentPages(const void* p, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> present((bytes + page - 1) / page);
  EXPECT_EQ(mincore(const_cast<void*>(p), bytes, present.data()), 0);
  std::vector<bool> out;
  for (unsigned char c : present) out.push_back((c & 1) != 0);
  return out;
}

// Whether the running kernel has MADV_POPULATE_WRITE (Linux 5.14).
bool KernelCanPopulatePages() {
  utsname name{};
  int major = 0, minor = 0;
  if (uname(&name) != 0 || std::sscanf(name.release, "%d.%d", &major, &minor) != 2) return false;
  return major > 5 || (major == 5 && minor >= 14);
}

TEST(MappedPagesTest, OnlyPopulatedOrWrittenPagesAreResident) {
  if (!KernelCanPopulatePages()) GTEST_SKIP() << "this kernel cannot populate pages (< 5.14)";
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = 64 * page;
  MappedPages memory = MapPages(bytes);
  auto* bytes_at = static_cast<unsigned char*>(memory.get());
  for (bool resident : ResidentPages(bytes_at, bytes)) EXPECT_FALSE(resident);
  PopulatePagesForWrite(bytes_at, 8 * page);
  bytes_at[40 * page] = 1;
  const std::vector<bool> resident = ResidentPages(bytes_at, bytes);
  for (size_t i = 0; i < resident.size(); ++i) {
    EXPECT_EQ(resident[i], i < 8 || i == 40) << "page " << i;
  }
}
#endif

TEST(TickCalibrationTest, TicksConvertToTheMonotonicClock) {
  const TickCalibration& c = TickCalibration::Get();
  const int64_t before = NowNs();
  const uint64_t ticks = Ticks();
  const int64_t after = NowNs();
  // Within a millisecond of the paired readings (conversion error and preemption).
  EXPECT_GE(c.ToNs(ticks), before - 1'000'000);
  EXPECT_LE(c.ToNs(ticks), after + 1'000'000);
}

TEST(RecorderTest, EventsOfEveryThreadReachTheSinkWithTheirThreadsNames) {
  Recording recording;
  Recorder& recorder = recording.recorder;
  trace::Model& model = recording.model;
  recorder.DefineStage({3, "decode", "map", 0, 0, -1, true, 2, 0, record::kTraitParallelFunction});
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      SetThreadName("worker/" + std::to_string(t));
      for (uint64_t i = 0; i < 1000; ++i) {
        const uint64_t t0 = Ticks();
        recorder.RecordSpan(EventKind::kWork, 3, t0, Ticks(), i + 1);
      }
    });
  }
  for (auto& th : threads) th.join();
  recorder.Stop();
  EXPECT_EQ(model.dropped_events(), 0u);
  const auto tracks = model.TracksOf(EventKind::kWork, 3);
  ASSERT_EQ(tracks.size(), 3u);
  std::set<std::string> names;
  for (const auto* t : tracks) {
    EXPECT_EQ(t->size(), 1000u);
    names.insert(model.ThreadName(t->key().thread));
  }
  EXPECT_EQ(names, (std::set<std::string>{"worker/0", "worker/1", "worker/2"}));
  ASSERT_NE(model.Stage(3), nullptr);
  EXPECT_EQ(model.Stage(3)->name, "decode");
}

// One call of source `owner` (op 1) from `start` to `end`, reported as Iterator::GetNext
// does: untimed when the recorder says it may be. Returns the own ticks the caller is told.
uint64_t CallSource(Recorder& recorder, const void* owner, uint64_t start, uint64_t end,
                    uint64_t element) {
  if (recorder.SourceCallUntimed(owner)) return recorder.EndUntimedSourceCall(1, element, 0);
  return recorder.RecordSourceCall(owner, 1, start, end, element, 0);
}

// Through the recorder, as a source's iterator calls it: cheap calls arrive as runs that
// count every element and the own time the caller was told; a run still open when the
// caller records its own call ends before it; the caller's calls stay one event each.
TEST(RecorderTest, ASourcesCheapCallsBecomeRunsThatCountEveryElement) {
  Recording recording;
  Recorder& recorder = recording.recorder;
  trace::Model& model = recording.model;
  recorder.DefineStage({1, "records", "synthetic", 0, 0, -1, false, 1, 0, record::kTraitSource});
  recorder.DefineStage({2, "batch", "batch", 0, 1, 1, false, 1, 0, record::kTraitBatches});
  const TickCalibration& clock = recorder.calibration();
  uint64_t told_self = 0;  // ticks
  std::thread([&] {
    static const int kSource = 0;
    // Times from 10 ms ago: every call has ended before the recorder reads the clock.
    const uint64_t base = Ticks() - clock.TicksFor(10'000'000);
    const uint64_t call = clock.TicksFor(200);
    const uint64_t pace = clock.TicksFor(300);
    uint64_t element = 1;
    for (int b = 0; b < 10; ++b) {
      const uint64_t batch_start = base + static_cast<uint64_t>(b) * clock.TicksFor(100'000);
      uint64_t t = batch_start;
      for (int k = 0; k < 100; ++k, ++element, t += pace) {  // 100 calls of 200 ns, 300 apart
        told_self += CallSource(recorder, &kSource, t, t + call, element);
      }
      recorder.RecordSpan(EventKind::kCall, 2, batch_start, t, element++);
    }
  }).join();
  recorder.Stop();
  const trace::Track* source = model.FindTrack({EventKind::kCall, 1, 1});
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(source->has_runs());
  EXPECT_EQ(source->CallsIn(0, source->size()), 1000) << "every element counted";
  EXPECT_EQ(source->size(), 10u) << "one run per batch";
  // The model holds nanoseconds: each run's ticks converted on their own.
  EXPECT_NEAR(source->SumValues(0, source->size()),
              static_cast<double>(clock.DurationNs(told_self)), 10.0);
  EXPECT_NEAR(source->SumValues(0, source->size()), 1000 * 200, 1000 * 2);
  for (size_t i = 0; i < source->size(); ++i) {
    EXPECT_EQ(source->calls(i), 100u);
    EXPECT_NEAR(static_cast<double>(source->end(i) - source->start(i)), 99 * 300 + 200, 100);
  }
  const trace::Track* batches = model.FindTrack({EventKind::kCall, 2, 1});
  ASSERT_NE(batches, nullptr);
  EXPECT_EQ(batches->size(), 10u);
  EXPECT_FALSE(batches->has_runs()) << "only sources make runs";
}

// A thread that ends right after a run of calls, with nothing recorded after it, still
// delivers the run.
TEST(RecorderTest, ARunStillOpenWhenItsThreadEndsIsDelivered) {
  Recording recording;
  Recorder& recorder = recording.recorder;
  trace::Model& model = recording.model;
  recorder.DefineStage({1, "records", "synthetic", 0, 0, -1, false, 1, 0, record::kTraitSource});
  std::thread([&] {
    static const int kSource = 0;
    const uint64_t base = Ticks() - recorder.calibration().TicksFor(10'000'000);
    const uint64_t pace = recorder.calibration().TicksFor(300);
    for (uint64_t e = 1; e <= 50; ++e) {
      const uint64_t t = base + e * pace;
      CallSource(recorder, &kSource, t, t + pace / 2, e);
    }
  }).join();
  recorder.Stop();
  const trace::Track* source = model.FindTrack({EventKind::kCall, 1, 1});
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->CallsIn(0, source->size()), 50);
}

// A call's own time in an Event's 32 bits: exact below 2^32 ticks, in units of 1024 past
// them (a 38 s batch of slow items keeps its time to a microsecond, where it was cut at
// 4.3 s), and the collector hands on nanoseconds without the flag that said so.
TEST(RecorderTest, ACallsSelfTimePast32BitsReachesTheTrace) {
  uint8_t flags = 0;
  EXPECT_EQ(EncodeSelf(1234, flags), 1234u);
  EXPECT_EQ(flags, 0);
  const uint64_t long_self = uint64_t{40} << 30;
  const uint32_t encoded = EncodeSelf(long_self, flags);
  EXPECT_EQ(flags, kFlagSelfScaled);
  EXPECT_EQ(DecodeSelf(encoded, flags), long_self);

  Recording recording;
  Recorder& recorder = recording.recorder;
  const uint64_t t0 = Ticks();
  const uint64_t self_ticks = TickCalibration::Get().TicksFor(38'400'000'000);
  uint8_t call_flags = 0;
  const uint32_t value = EncodeSelf(self_ticks, call_flags);
  recorder.Record(Event{t0, t0 + self_ticks, 7, value, 1, EventKind::kCall, call_flags});
  recorder.Stop();
  const auto calls = recording.model.TracksOf(EventKind::kCall, 1);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_NEAR(static_cast<double>(calls[0]->value(0)), 38.4e9, 1e4);
  EXPECT_EQ(calls[0]->element(0), 7u) << "still a call that gave its element";
}

TEST(RecorderTest, SpansKeepTheirRealDurations) {
  Recording recording;
  Recorder& recorder = recording.recorder;
  trace::Model& model = recording.model;
  const uint64_t t0 = Ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  recorder.RecordSpan(EventKind::kWork, 1, t0, Ticks());
  const int64_t ns_sleep_start = NowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  recorder.Record(Event{static_cast<uint64_t>(ns_sleep_start), static_cast<uint64_t>(NowNs()), 0, 0,
                        kDeviceOp, EventKind::kStep, kFlagTimesInNs});
  recorder.Stop();
  const auto work = model.TracksOf(EventKind::kWork, 1);
  ASSERT_EQ(work.size(), 1u);
  EXPECT_GE(work[0]->duration(0), 5'000'000);
  EXPECT_LT(work[0]->duration(0), 50'000'000);
  const auto steps = model.TracksOf(EventKind::kStep, kDeviceOp);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_GE(steps[0]->duration(0), 3'000'000);
  // Both clocks land on one time axis: the step began after the work span ended.
  EXPECT_GE(steps[0]->start(0), work[0]->end(0));
}

// The test's own events: the collector adds CPU-time samples of its own.
size_t WorkEvents(const trace::Model& model) {
  size_t n = 0;
  for (const auto* t : model.TracksOf(EventKind::kWork, 1)) n += t->size();
  return n;
}

// A sink that holds the collector in its first Consume until released.
class StallingSink : public TraceSink {
 public:
  void Consume(const TraceBatch& batch, bool final) override {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return released_; });
    model.Consume(batch, final);
  }
  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  trace::Model model;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
};

TEST(RecorderTest, WhenTheCollectorFallsBehindEventsAreDroppedAndCounted) {
  Recorder recorder;
  StallingSink sink;
  recorder.AddSink(&sink);
  recorder.Start();
  const size_t n = 2 * EventRing::kCapacity;
  for (size_t i = 0; i < n; ++i) recorder.RecordSpan(EventKind::kWork, 1, i, i + 1, i + 1);
  sink.Release();
  recorder.Stop();
  // The producer never waited: what did not fit was counted, and the trace says so.
  EXPECT_GT(sink.model.dropped_events(), 0u);
  EXPECT_EQ(WorkEvents(sink.model) + sink.model.dropped_events(), n);
}

TEST(RecorderTest, ThreadsThatEndedStillHaveAllTheirEventsDelivered) {
  Recording recording;
  Recorder& recorder = recording.recorder;
  trace::Model& model = recording.model;
  for (int round = 0; round < 20; ++round) {
    std::thread([&] {
      for (uint64_t i = 0; i < 100; ++i) recorder.RecordSpan(EventKind::kWork, 1, i, i + 1);
    }).join();
  }
  recorder.Stop();
  EXPECT_EQ(WorkEvents(model), 2000u);
  EXPECT_EQ(model.TracksOf(EventKind::kWork, 1).size(), 20u);
}

TEST(RecorderTest, KnobChangesAndMarkersArriveOnTheRecordingsTimeAxis) {
  Recording recording;
  Recorder& recorder = recording.recorder;
  trace::Model& model = recording.model;
  recorder.KnobChanged({NowNs(), 2, "num_parallel_calls", 1, 4, "cli"});
  recorder.Mark(NowNs(), "pipeline rebuilt");
  recorder.Stop();
  ASSERT_EQ(model.knob_changes().size(), 1u);
  const auto& k = model.knob_changes()[0];
  EXPECT_EQ(k.knob, "num_parallel_calls");
  EXPECT_EQ(k.from, 1);
  EXPECT_EQ(k.to, 4);
  EXPECT_EQ(k.who, "cli");
  EXPECT_GE(k.time_ns, 0);
  EXPECT_LT(k.time_ns, 1'000'000'000);
  ASSERT_EQ(model.markers().size(), 1u);
}

}  // namespace
}  // namespace pipescope::record
