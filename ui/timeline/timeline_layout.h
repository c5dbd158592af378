#pragma once
// The timeline's layout in pixels, shared by its interaction (hit tests) and its drawing.

#include "ui/timeline/lanes.h"

namespace pipescope::ui {

inline constexpr float kLabelWidth = 230;  // the lane labels left of the lanes
inline constexpr float kAxisHeight = 24;
inline constexpr float kLaneHeight = 16;
inline constexpr float kCounterHeight = 28;
inline constexpr float kLaneGap = 3;
// The steps/s plot pinned under the time axis (rate_plot.h), where the trace has steps.
inline constexpr float kRatePlotHeight = 52;

inline float LaneHeight(const Lane& lane) {
  return lane.kind == LaneKind::kCounter ? kCounterHeight : kLaneHeight;
}

}  // namespace pipescope::ui
