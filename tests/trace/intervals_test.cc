// trace::Union, UnionCursor and GapCursor: the merged union of several tracks and its gaps,
// against a union computed here the plain way (every span copied, sorted and merged).
#include "instrumentation/trace/intervals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

namespace pipescope::trace {
namespace {

std::vector<Interval> PlainUnion(const std::vector<Interval>& spans, int64_t t0, int64_t t1) {
  std::vector<Interval> clipped;
  for (const auto& [a, b] : spans) {
    if (std::min(b, t1) > std::max(a, t0)) clipped.emplace_back(std::max(a, t0), std::min(b, t1));
  }
  std::sort(clipped.begin(), clipped.end());
  std::vector<Interval> merged;
  for (const auto& iv : clipped) {
    if (!merged.empty() && iv.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, iv.second);
    } else {
      merged.push_back(iv);
    }
  }
  return merged;
}

std::vector<Interval> PlainGaps(const std::vector<Interval>& merged, int64_t t0, int64_t t1) {
  std::vector<Interval> gaps;
  int64_t at = t0;
  for (const auto& [a, b] : merged) {
    if (a > at) gaps.emplace_back(at, a);
    at = std::max(at, b);
  }
  if (at < t1) gaps.emplace_back(at, t1);
  return gaps;
}

TEST(IntervalsTest, CursorsWalkTheUnionAndItsGapsOfSeveralTracks) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::unique_ptr<Track>> tracks;
    std::vector<const Track*> pointers;
    std::vector<Interval> all;
    const int count = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < count; ++k) {
      tracks.push_back(std::make_unique<Track>(
          TrackKey{record::EventKind::kGpuKernel, record::kDeviceOp, static_cast<uint32_t>(k)}));
      int64_t t = static_cast<int64_t>(rng() % 50);
      for (int i = 0; i < 300; ++i) {
        const int64_t gap = static_cast<int64_t>(rng() % 40);
        const int64_t d = static_cast<int64_t>(rng() % 30);  // some zero-length
        tracks.back()->Append(t + gap, t + gap + d, 0, 0);
        all.emplace_back(t + gap, t + gap + d);
        t += gap + d;
      }
      pointers.push_back(tracks.back().get());
    }
    const int64_t t0 = static_cast<int64_t>(rng() % 500),
                  t1 = t0 + static_cast<int64_t>(rng() % 8000);
    const std::vector<Interval> expected = PlainUnion(all, t0, t1);
    EXPECT_EQ(Union(pointers, t0, t1), expected) << "trial " << trial;
    std::vector<Interval> gaps;
    GapCursor cursor(pointers, t0, t1);
    for (Interval gap; cursor.Next(gap);) gaps.push_back(gap);
    EXPECT_EQ(gaps, PlainGaps(expected, t0, t1)) << "trial " << trial;
    EXPECT_EQ(gaps, Subtract({{t0, t1}}, expected)) << "trial " << trial;
  }
}

TEST(IntervalsTest, NothingBusyIsOneGap) {
  GapCursor cursor({}, 10, 20);
  Interval gap;
  ASSERT_TRUE(cursor.Next(gap));
  EXPECT_EQ(gap, Interval(10, 20));
  EXPECT_FALSE(cursor.Next(gap));
}

}  // namespace
}  // namespace pipescope::trace
