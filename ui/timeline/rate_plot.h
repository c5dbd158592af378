#pragma once
// The steps/s plot pinned above the lanes: the rate of a track's span starts (the device's
// steps) across the view, smoothed, with a y-axis of round numbers. Each interval between
// two step starts counts as one step spread evenly over it, so a window holds a fractional
// count and a steady 10 ms step reads 100 steps/s at any zoom, with no sawtooth from steps
// falling in or out of a pixel's window. Plain arithmetic, tested without a display.

#include <cstdint>
#include <vector>

#include "engine/core/axis_top.h"
#include "instrumentation/trace/track.h"
#include "ui/timeline/time_axis.h"

namespace pipescope::ui {

struct RatePlot {
  // Per pixel of the axis: steps per second over `window_ns` centred on the pixel; NaN
  // where the trace says nothing (before its first step, after its last).
  std::vector<float> rate;
  double max = 0;         // the largest rate in view (0: none)
  double axis_top = 1;    // the y-axis' top: a round number (1, 2, 2.5 or 5 × 10^k) ≥ max
  int64_t window_ns = 0;  // the smoothing window
  // Steps per second over the part of the view that has steps (NaN: none in view).
  double mean_in_view = 0;
};

// Windows span at least this many pixels of the view and two mean step intervals of the
// trace, so that the plot reads as a rate, not as the comb of single steps.
inline constexpr int kRateWindowPixels = 24;

RatePlot BuildRatePlot(const trace::Track& steps, const TimeAxis& axis);

}  // namespace pipescope::ui
