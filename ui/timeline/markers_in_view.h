#pragma once
// Which of a trace's markers the timeline draws, and how. Markers are instants drawn across
// every lane (a rebuild, a profiler's window), but an imported trace may hold thousands
// (PyTorch's [memory] instants: 10,980 in a real ResNet-50 trace), which as lines cover the
// lanes in grey. More than one per kDenseMarkerPixels in view, they are drawn as ticks under
// the axis, one per pixel, without labels.

#include <algorithm>
#include <cstddef>
#include <vector>

#include "instrumentation/record/trace_sink.h"
#include "ui/timeline/time_axis.h"

namespace pipescope::ui {

inline constexpr float kDenseMarkerPixels = 8;

struct MarkersInView {
  size_t first =
      0;  // [first, last) of the markers in [t0, t1], which are in time order (Model::markers)
  size_t last = 0;
  bool as_ticks = false;
};

inline MarkersInView FindMarkersInView(const std::vector<record::MarkerDef>& markers,
                                       const TimeAxis& axis) {
  auto before = [](const record::MarkerDef& m, int64_t t) { return m.time_ns < t; };
  const auto first = std::lower_bound(markers.begin(), markers.end(), axis.t0, before);
  // Up to and including t1: a profiler's "Record Window End" sits at the trace's very end.
  const auto last =
      std::upper_bound(first, markers.end(), axis.t1,
                       [](int64_t t, const record::MarkerDef& m) { return t < m.time_ns; });
  MarkersInView out;
  out.first = static_cast<size_t>(first - markers.begin());
  out.last = static_cast<size_t>(last - markers.begin());
  out.as_ticks = static_cast<float>(out.last - out.first) * kDenseMarkerPixels > axis.width;
  return out;
}

}  // namespace pipescope::ui
