// trace::Track: the range sums and the level-of-detail query agree with a direct count.
#include "instrumentation/trace/track.h"

#include <gtest/gtest.h>

#include <random>

namespace pipescope::trace {
namespace {

struct Span {
  int64_t start, end;
  uint32_t value;
};

std::vector<Span> RandomSpans(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Span> spans;
  int64_t t = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t gap = static_cast<int64_t>(rng() % 100);
    const int64_t d = static_cast<int64_t>(rng() % 300);
    spans.push_back({t + gap, t + gap + d, static_cast<uint32_t>(rng() % 50)});
    t += gap + d;
  }
  return spans;
}

Track Build(const std::vector<Span>& spans) {
  Track track({record::EventKind::kCall, 1, 1});
  uint64_t id = 1;
  for (const auto& s : spans) track.Append(s.start, s.end, id++, s.value);
  return track;
}

int64_t BruteCovered(const std::vector<Span>& spans, int64_t t0, int64_t t1) {
  int64_t c = 0;
  for (const auto& s : spans)
    c += std::max<int64_t>(0, std::min(s.end, t1) - std::max(s.start, t0));
  return c;
}

TEST(TrackTest, RangeSumsMatchADirectCount) {
  const auto spans = RandomSpans(5000, 1);
  const Track track = Build(spans);
  std::mt19937_64 rng(2);
  const int64_t end = spans.back().end;
  for (int trial = 0; trial < 500; ++trial) {
    int64_t a = static_cast<int64_t>(rng() % static_cast<uint64_t>(end + 100)) - 50;
    int64_t b = static_cast<int64_t>(rng() % static_cast<uint64_t>(end + 100)) - 50;
    if (a > b) std::swap(a, b);
    const auto sums = track.SumRange(a, b);
    ASSERT_EQ(sums.covered_ns, BruteCovered(spans, a, b)) << a << ".." << b;
    size_t overlapping = 0;
    double value = 0;
    for (const auto& s : spans) {
      const int64_t inside = std::min(s.end, b) - std::max(s.start, a);
      if (s.end > a && s.start < b) ++overlapping;
      if (inside > 0 && s.end > s.start)
        value += s.value * double(inside) / double(s.end - s.start);
      if (s.end == s.start && s.start > a && s.start < b) value += s.value;  // an instant inside
    }
    // Zero-length spans at the edges are counted by neither definition consistently; the
    // count may differ by them, never the time.
    EXPECT_NEAR(static_cast<double>(sums.events), static_cast<double>(overlapping), 2.0);
    EXPECT_NEAR(sums.value, value, 1e-6 * std::max(1.0, value));
  }
}

TEST(TrackTest, PixelSummaryMatchesADirectCountPerPixel) {
  const auto spans = RandomSpans(20000, 3);
  const Track track = Build(spans);
  std::vector<Track::Bucket> buckets;
  const int64_t t0 = spans[100].start + 17, t1 = spans[15000].end - 3;
  const int pixels = 700;
  track.Summarize(t0, t1, pixels, buckets);
  ASSERT_EQ(buckets.size(), static_cast<size_t>(pixels));
  const double width = static_cast<double>(t1 - t0) / pixels;
  int64_t total = 0;
  for (int p = 0; p < pixels; ++p) {
    const auto b0 = t0 + static_cast<int64_t>(p * width);
    const auto b1 = t0 + static_cast<int64_t>((p + 1) * width);
    ASSERT_EQ(buckets[p].covered_ns, BruteCovered(spans, b0, b1)) << "pixel " << p;
    total += buckets[p].covered_ns;
    if (buckets[p].events > 0) {
      EXPECT_GT(track.end(buckets[p].first), b0);
      EXPECT_LT(track.start(buckets[p].first), b1);
    }
  }
  EXPECT_EQ(total, BruteCovered(spans, t0, t1));
}

// The searches by time look at the block starts first, then inside one block: they find
// what a scan over every span finds, from any `from`, at span edges, across zero-length
// spans and across gaps of more than 2^32 ns (a start kept outside its block's 32 bits).
TEST(TrackTest, SearchesByTimeMatchALinearScan) {
  std::mt19937_64 rng(7);
  std::vector<Span> spans;
  int64_t t = -1000;
  for (int i = 0; i < 3000; ++i) {
    const uint64_t r = rng() % 100;
    const int64_t gap = r < 2 ? 5'000'000'000 : r < 10 ? 0 : static_cast<int64_t>(rng() % 50);
    const int64_t d = r % 7 == 0 ? 0 : static_cast<int64_t>(rng() % 80);
    spans.push_back({t + gap, t + gap + d, 0});
    t += gap + d;
  }
  const Track track = Build(spans);
  for (size_t i = 0; i < spans.size(); ++i) {
    ASSERT_EQ(track.start(i), spans[i].start) << i;
    ASSERT_EQ(track.end(i), spans[i].end) << i;
  }
  const auto first_ending_after = [&](int64_t at, size_t from) {
    while (from < spans.size() && spans[from].end <= at) ++from;
    return from;
  };
  const auto first_starting_at_or_after = [&](int64_t at, size_t from) {
    while (from < spans.size() && spans[from].start < at) ++from;
    return from;
  };
  std::vector<int64_t> times;
  for (const auto& s : spans) times.insert(times.end(), {s.start - 1, s.start, s.end, s.end + 1});
  for (int k = 0; k < 2000; ++k) times.push_back(-2000 + static_cast<int64_t>(rng() % (t + 4000)));
  for (const int64_t at : times) {
    const size_t from = rng() % 2 ? 0 : static_cast<size_t>(rng() % (spans.size() + 1));
    ASSERT_EQ(track.FirstEndingAfter(at, from), first_ending_after(at, from)) << at << " " << from;
    ASSERT_EQ(track.FirstStartingAtOrAfter(at, from), first_starting_at_or_after(at, from))
        << at << " " << from;
  }
}

TEST(TrackTest, KeepsLongDurationsAndWideElementIds) {
  Track track({record::EventKind::kIdle, 1, 1});
  track.Append(0, 10'000'000'000, 5, 0);  // 10 s: more than 32 bits of nanoseconds
  track.Append(10'000'000'000, 10'000'000'100, uint64_t{1} << 40, 0);
  EXPECT_EQ(track.duration(0), 10'000'000'000);
  EXPECT_EQ(track.element(0), 5u);
  EXPECT_EQ(track.element(1), uint64_t{1} << 40);
  EXPECT_EQ(track.SumRange(0, 20'000'000'000).covered_ns, 10'000'000'100);
}

// A call's self time past 2^32 ns (a DataLoader batch of 64 items at 600 ms each, 38.4 s)
// reads back whole and counts whole in the sums, where it was cut at 4.3 s and its op
// looked idle beside its neighbours.
TEST(TrackTest, KeepsValuesPast32Bits) {
  Track track({record::EventKind::kCall, 1, 1});
  track.Append(0, 40'000'000'000, 1, 38'400'000'000);
  track.Append(40'000'000'000, 40'000'001'000, 2, 900);
  track.Append(40'000'001'000, 40'000'002'000, 3, UINT32_MAX);  // exactly the column's escape
  EXPECT_EQ(track.value(0), 38'400'000'000u);
  EXPECT_EQ(track.value(1), 900u);
  EXPECT_EQ(track.value(2), UINT32_MAX);
  EXPECT_DOUBLE_EQ(track.SumRange(0, 50'000'000'000).value,
                   38'400'000'000.0 + 900.0 + static_cast<double>(UINT32_MAX));
}

TEST(TrackTest, RunsCountEveryCallTheyStandFor) {
  Track track({record::EventKind::kCall, 1, 1});
  std::mt19937_64 rng(5);
  std::vector<uint32_t> calls;
  for (int i = 0; i < 1000; ++i) {
    // Single calls first: the call column starts late, with ones before it.
    calls.push_back(i < 100 ? 1 : static_cast<uint32_t>(1 + rng() % 40));
    track.Append(i * 10, i * 10 + 5, 1000 + static_cast<uint64_t>(i) * 64, 2, calls.back());
  }
  EXPECT_TRUE(track.has_runs());
  for (int trial = 0; trial < 300; ++trial) {
    size_t i = rng() % 1001, j = rng() % 1001;
    if (i > j) std::swap(i, j);
    int64_t want = 0;
    for (size_t k = i; k < j; ++k) want += calls[k];
    ASSERT_EQ(track.CallsIn(i, j), want) << i << ".." << j;
  }
  EXPECT_EQ(track.calls(0), 1u);
  EXPECT_EQ(track.calls(500), calls[500]);
  EXPECT_EQ(track.element(500), 1000u + 500 * 64);  // a run keeps its first element

  Track singles({record::EventKind::kCall, 1, 2});
  for (int i = 0; i < 100; ++i) singles.Append(i, i + 1, 0, 0);
  EXPECT_FALSE(singles.has_runs());
  EXPECT_EQ(singles.CallsIn(10, 90), 80);
}

// Columns that start part-way through a block (values, element ids, then wide ids, runs)
// and long durations among short ones: every event reads back as it was appended, and the
// block sums agree with a direct count.
TEST(TrackTest, EveryEventReadsBackWhateverColumnsItStarts) {
  struct Event {
    int64_t start, end;
    uint64_t element;
    uint32_t value, calls;
  };
  std::vector<Event> events;
  std::mt19937_64 rng(11);
  int64_t t = 0;
  for (int i = 0; i < 5000; ++i) {
    const int64_t d = i % 997 == 3 ? int64_t{5'000'000'000} : static_cast<int64_t>(rng() % 500);
    const uint64_t element = i < 70 ? 0 : (i < 3000 ? 10 + i : (uint64_t{1} << 33) + i);
    const uint32_t value = i < 130 ? 0 : static_cast<uint32_t>(rng() % 9);
    const uint32_t calls = i < 200 ? 1 : static_cast<uint32_t>(1 + rng() % 4);
    events.push_back({t, t + d, element, value, calls});
    t += d + static_cast<int64_t>(rng() % 50);
  }
  Track track({record::EventKind::kCall, 1, 1});
  for (const Event& e : events) track.Append(e.start, e.end, e.element, e.value, e.calls);
  ASSERT_EQ(track.size(), events.size());
  int64_t durations = 0, calls = 0;
  double values = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(track.start(i), events[i].start) << i;
    ASSERT_EQ(track.end(i), events[i].end) << i;
    ASSERT_EQ(track.element(i), events[i].element) << i;
    ASSERT_EQ(track.value(i), events[i].value) << i;
    ASSERT_EQ(track.calls(i), events[i].calls) << i;
    durations += events[i].end - events[i].start;
    values += events[i].value;
    calls += events[i].calls;
  }
  EXPECT_EQ(track.SumDurations(0, events.size()), durations);
  EXPECT_EQ(track.SumValues(0, events.size()), values);
  EXPECT_EQ(track.CallsIn(0, events.size()), calls);
  EXPECT_EQ(track.SumDurations(100, 4321), [&] {
    int64_t d = 0;
    for (size_t i = 100; i < 4321; ++i) d += events[i].end - events[i].start;
    return d;
  }());
}

TEST(TrackTest, OverlappingInputIsMadeSequential) {
  Track track({record::EventKind::kWork, 1, 1});
  track.Append(100, 200, 1, 0);
  track.Append(150, 300, 2, 0);  // starts before the previous end
  track.Append(50, 60, 3, 0);    // entirely before it
  EXPECT_EQ(track.start(1), 200);
  EXPECT_EQ(track.end(1), 300);
  EXPECT_EQ(track.start(2), 300);
  EXPECT_EQ(track.duration(2), 0);
  EXPECT_EQ(track.SumRange(0, 1000).covered_ns, 200);
}

TEST(TrackTest, ColumnsThatAreAllZeroCostNothing) {
  Track with_values({record::EventKind::kCall, 1, 1});
  Track without({record::EventKind::kWaitInput, 1, 1});
  for (int i = 0; i < 100000; ++i) {
    with_values.Append(i * 10, i * 10 + 5, static_cast<uint64_t>(i + 1), 3);
    without.Append(i * 10, i * 10 + 5, 0, 0);
  }
  with_values.ShrinkToFit();
  without.ShrinkToFit();
  // A start is 32 bits from its block's first start: 4 + 4 + 4 + 4 bytes, plus the block
  // starts and sums (0.375 bytes an event).
  EXPECT_LE(with_values.memory_bytes(), 100000u * 17);
  EXPECT_LE(without.memory_bytes(), 100000u * 9);
}

}  // namespace
}  // namespace pipescope::trace
