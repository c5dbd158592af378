#pragma once
// How much of a lane's height a pixel shows: the share of the pixel's time its spans
// cover. Zoomed out, a device lane that is 60% busy then looks 60% busy, where a full-height
// pixel in a lighter colour made 60% and 100% look alike. Plain arithmetic, tested on its
// own.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace pipescope::ui {

// A pixel this full or more is drawn whole (and joins its neighbours' rectangle).
inline constexpr double kFullPixelShare = 0.95;

// The height to fill, from the lane's bottom, for `covered_ns` of a pixel spanning
// `pixel_ns`: proportional, at least one pixel for any covered time so that a short span
// never vanishes, the whole lane from kFullPixelShare up.
inline float CoveredHeight(double covered_ns, double pixel_ns, float lane_height) {
  if (covered_ns <= 0 || pixel_ns <= 0) return 0;
  const double share = std::min(1.0, covered_ns / pixel_ns);
  if (share >= kFullPixelShare) return lane_height;
  return std::clamp(static_cast<float>(share) * lane_height, 1.0f, lane_height);
}

// The time each of `pixels` pixels spanning [t0, t1) covers of sorted, disjoint
// `intervals`, in ns, into `covered` (resized). A binary search to the first interval in
// view, then one pass over those in it.
inline void CoverageByPixel(const std::vector<std::pair<int64_t, int64_t>>& intervals, int64_t t0,
                            int64_t t1, int pixels, std::vector<double>& covered) {
  covered.assign(static_cast<size_t>(std::max(0, pixels)), 0.0);
  if (pixels <= 0 || t1 <= t0) return;
  const double pixel_ns = static_cast<double>(t1 - t0) / pixels;
  auto it = std::lower_bound(intervals.begin(), intervals.end(), t0,
                             [](const auto& i, int64_t t) { return i.second <= t; });
  for (; it != intervals.end() && it->first < t1; ++it) {
    const double a = static_cast<double>(std::max(it->first, t0) - t0);
    const double b = static_cast<double>(std::min(it->second, t1) - t0);
    const int first = std::min(pixels - 1, static_cast<int>(a / pixel_ns));
    const int last = std::min(pixels - 1, static_cast<int>(b / pixel_ns));
    for (int p = first; p <= last; ++p) {
      const double lo = std::max(a, p * pixel_ns), hi = std::min(b, (p + 1) * pixel_ns);
      if (hi > lo) covered[static_cast<size_t>(p)] += hi - lo;
    }
  }
}

}  // namespace pipescope::ui
