#pragma once
// The timeline's layout in pixels, shared by its interaction (hit tests) and its drawing.

#include <algorithm>

#include "ui/timeline/lanes.h"

namespace pipescope::ui {

// The label column left of the lanes: as wide as its longest label, between kMinLabelWidth
// and kMaxLabelShare of the timeline's width (a fixed 230 px took 70% of a lesson's
// timeline in presenter mode), unless a person dragged its edge (then up to
// kMaxDraggedLabelShare). Widths in ImGui's logical pixels.
inline constexpr float kMinLabelWidth = 110;
inline constexpr float kLabelPadding = 14;
inline constexpr float kMaxLabelShare = 0.4f;
inline constexpr float kMaxDraggedLabelShare = 0.7f;
inline constexpr float kLabelEdgeGrab = 4;  // pixels either side of the edge that grab it
// `natural`: the widest label's text; `dragged`: the width a person chose (0: none).
inline float LabelColumnWidth(float natural, float dragged, float timeline_width) {
  const float widest = timeline_width * (dragged > 0 ? kMaxDraggedLabelShare : kMaxLabelShare);
  const float wanted = dragged > 0 ? dragged : natural + kLabelPadding;
  return std::max(std::min(kMinLabelWidth, timeline_width / 2), std::min(wanted, widest));
}
inline constexpr float kAxisHeight = 24;
inline constexpr float kLaneHeight = 16;
inline constexpr float kCounterHeight = 28;
inline constexpr float kLaneGap = 3;
inline constexpr float kNestedRowGap = 1;    // between the rows of one thread's track
inline constexpr float kFoldMarkWidth = 12;  // the fold triangle left of a track's label
// The steps/s plot pinned under the time axis (rate_plot.h), where the trace has steps.
inline constexpr float kRatePlotHeight = 52;

inline float LaneHeight(const Lane& lane) {
  return lane.kind == LaneKind::kCounter ? kCounterHeight : kLaneHeight;
}

}  // namespace pipescope::ui
