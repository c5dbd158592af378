#pragma once
// grid --plot FILE.png: steps/s against the first gridded knob (parallelism, usually), one
// line per combination of the other knobs, each point with its 95% interval and the best
// ringed; the picture people paste into a ticket to show where parallelism stops paying.

#include <cstdint>
#include <string>
#include <vector>

#include "app/session/raster.h"
#include "engine/core/status.h"

namespace pipescope::session {

struct GridChart {
  std::string title;                              // "decode.num_parallel_calls: demo.pbtxt"
  std::vector<std::string> knobs;                 // "op.knob", the first along x
  std::vector<std::vector<int64_t>> knob_values;  // the values tried, per knob
  struct Point {
    std::vector<int64_t> values;  // one per knob
    double steps_per_s = 0;
    double half_width = 0;  // of its 95% interval
  };
  std::vector<Point> points;
  size_t best = 0;  // index into points
};

inline constexpr int kGridPlotWidth = 960;
inline constexpr int kGridPlotHeight = 600;

Raster DrawGridChart(const GridChart& chart, int width = kGridPlotWidth,
                     int height = kGridPlotHeight);

// Where a point is drawn on DrawGridChart's canvas (tests find its pixels there).
struct GridChartPlace {
  double x = 0, y = 0;
};
GridChartPlace PlaceOf(const GridChart& chart, size_t point, int width = kGridPlotWidth,
                       int height = kGridPlotHeight);

// The colour of each line (a combination of the other knobs), by its index.
Rgb SeriesColor(size_t series);

}  // namespace pipescope::session
