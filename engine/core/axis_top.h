#pragma once
// The top of a chart's y-axis: the smallest 1, 2, 2.5 or 5 × 10^k at or above the largest
// value, so that the axis reads in round numbers (its half is round too). One rule for the
// timeline's steps/s plot, the tuner's chart and grid --plot.

#include <cmath>

namespace pipescope::engine {

// 1 for v ≤ 0 (an empty chart still has an axis).
inline double RoundAxisTop(double v) {
  if (!(v > 0)) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(v)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * magnitude >= v * (1 - 1e-9)) return m * magnitude;
  }
  return 10 * magnitude;
}

}  // namespace pipescope::engine
