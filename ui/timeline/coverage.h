#pragma once
// How much of a lane's height a pixel shows: the share of the pixel's time its spans
// cover. Zoomed out, a device lane that is 60% busy then looks 60% busy, where a full-height
// pixel in a lighter colour made 60% and 100% look alike. Plain arithmetic, tested on its
// own.

#include <algorithm>

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

}  // namespace pipescope::ui
