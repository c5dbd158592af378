#include "app/session/grid_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/core/axis_top.h"

namespace pipescope::session {
namespace {

const Rgb kBackground{255, 255, 255};
const Rgb kText{30, 30, 36};
const Rgb kGrid{225, 225, 232};
const Rgb kAxis{120, 120, 130};
const Rgb kBest{230, 150, 0};

// The plot area inside the canvas: room for the title above, the y labels left, the x
// labels and the knob's name below, the legend right.
struct Area {
  double left, top, right, bottom;
};

Area PlotArea(int width, int height) {
  return {70, 64, static_cast<double>(width) - 260, static_cast<double>(height) - 64};
}

// The combination of the other knobs' values: which line a point is on.
std::vector<int64_t> SeriesKey(const GridChart::Point& p) {
  return std::vector<int64_t>(p.values.begin() + (p.values.empty() ? 0 : 1), p.values.end());
}

std::map<std::vector<int64_t>, size_t> SeriesOf(const GridChart& chart) {
  std::map<std::vector<int64_t>, size_t> series;
  for (const auto& p : chart.points) series.emplace(SeriesKey(p), 0);
  size_t i = 0;
  for (auto& [key, index] : series) index = i++;
  return series;
}

double AxisTop(const GridChart& chart) {
  double max = 0;
  for (const auto& p : chart.points) max = std::max(max, p.steps_per_s + p.half_width);
  return engine::RoundAxisTop(max);
}

std::string Number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

}  // namespace

Rgb SeriesColor(size_t series) {
  static const Rgb kColors[] = {{66, 120, 210}, {70, 170, 90},  {200, 70, 70},  {140, 90, 200},
                                {40, 170, 170}, {200, 120, 40}, {120, 120, 40}, {200, 80, 160}};
  return kColors[series % (sizeof kColors / sizeof kColors[0])];
}

GridChartPlace PlaceOf(const GridChart& chart, size_t point, int width, int height) {
  const Area a = PlotArea(width, height);
  const auto& p = chart.points[point];
  const auto& xs = chart.knob_values.front();
  const auto at = std::find(xs.begin(), xs.end(), p.values.front());
  const double slot = (a.right - a.left) / static_cast<double>(std::max<size_t>(xs.size(), 1));
  const double x = a.left + (static_cast<double>(at - xs.begin()) + 0.5) * slot;
  const double y = a.bottom - p.steps_per_s / AxisTop(chart) * (a.bottom - a.top);
  return {x, y};
}

Raster DrawGridChart(const GridChart& chart, int width, int height) {
  Raster r(width, height, kBackground);
  const Area a = PlotArea(width, height);
  r.Text(16, 14, chart.title, kText, 2);
  if (chart.knobs.empty() || chart.points.empty()) return r;
  const double top = AxisTop(chart);
  auto y_of = [&](double v) { return a.bottom - v / top * (a.bottom - a.top); };
  for (int i = 0; i <= 4; ++i) {
    const double v = top * i / 4;
    const double y = y_of(v);
    r.Line(a.left, y, a.right, y, i == 0 ? kAxis : kGrid);
    const std::string label = Number(v);
    r.Text(a.left - 8 - Raster::TextWidth(label), y - Raster::TextHeight() / 2.0, label, kText);
  }
  // The y axis's name beside its top, clear of the top value's label to its left.
  r.Text(a.left + 8, a.top - 24, "steps/s", kText);
  // The first knob's values along x, evenly spaced (they are powers of two: a log scale).
  const auto& xs = chart.knob_values.front();
  const double slot = (a.right - a.left) / static_cast<double>(std::max<size_t>(xs.size(), 1));
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = a.left + (static_cast<double>(i) + 0.5) * slot;
    r.Line(x, a.bottom, x, a.bottom + 5, kAxis);
    const std::string label = std::to_string(xs[i]);
    r.Text(x - Raster::TextWidth(label) / 2.0, a.bottom + 10, label, kText);
  }
  const std::string x_name = chart.knobs.front();
  r.Text((a.left + a.right - Raster::TextWidth(x_name)) / 2, a.bottom + 34, x_name, kText);
  // One line per combination of the other knobs, in the order of the first knob's values.
  const auto series = SeriesOf(chart);
  if (chart.knobs.size() == 2) r.Text(a.right + 16, a.top, chart.knobs[1], kText);
  for (const auto& [key, index] : series) {
    std::vector<size_t> members;
    for (size_t i = 0; i < chart.points.size(); ++i) {
      if (SeriesKey(chart.points[i]) == key) members.push_back(i);
    }
    // Left to right: in the order of the first knob's values.
    auto column = [&](size_t p) {
      return std::find(xs.begin(), xs.end(), chart.points[p].values.front()) - xs.begin();
    };
    std::sort(members.begin(), members.end(),
              [&](size_t p, size_t q) { return column(p) < column(q); });
    const Rgb color = SeriesColor(index);
    for (size_t m = 0; m < members.size(); ++m) {
      const auto& p = chart.points[members[m]];
      const GridChartPlace at = PlaceOf(chart, members[m], width, height);
      if (m > 0) {
        const GridChartPlace before = PlaceOf(chart, members[m - 1], width, height);
        r.Line(before.x, before.y, at.x, at.y, color, 2);
      }
      // The 95% interval: a bar with caps.
      const double lo = y_of(std::max(0.0, p.steps_per_s - p.half_width));
      const double hi = y_of(p.steps_per_s + p.half_width);
      r.Line(at.x, lo, at.x, hi, color);
      r.Line(at.x - 4, lo, at.x + 4, lo, color);
      r.Line(at.x - 4, hi, at.x + 4, hi, color);
    }
    for (const size_t m : members) {
      const GridChartPlace at = PlaceOf(chart, m, width, height);
      r.Dot(at.x, at.y, 4, color);
    }
    // Its legend entry: the other knobs' values ("prefetch.buffer_size=4").
    std::string label;
    for (size_t k = 0; k < key.size(); ++k) {
      label += (label.empty() ? "" : ", ") + chart.knobs[k + 1] + "=" + std::to_string(key[k]);
    }
    if (label.empty()) label = "steps/s";
    // One other knob: the legend's title names it, its entries only the value.
    if (key.size() == 1) label = std::to_string(key[0]);
    const double ly = a.top + 24 + static_cast<double>(index) * 22;
    r.FillRect(a.right + 16, ly, a.right + 30, ly + 14, color);
    r.Text(a.right + 36, ly, label.size() > 30 ? label.substr(0, 27) + "..." : label, kText);
  }
  // The best point ringed, and named under the legend.
  const GridChartPlace best = PlaceOf(chart, chart.best, width, height);
  for (double radius = 8; radius <= 10; radius += 0.5) {
    for (int k = 0; k < 64; ++k) {
      const double angle = k * 2 * 3.14159265358979 / 64;
      r.FillRect(best.x + radius * std::cos(angle) - 0.5, best.y + radius * std::sin(angle) - 0.5,
                 best.x + radius * std::cos(angle) + 0.5, best.y + radius * std::sin(angle) + 0.5,
                 kBest);
    }
  }
  const double note_y = a.top + 24 + static_cast<double>(series.size()) * 22 + 16;
  r.Text(a.right + 16, note_y, "ringed: the best,", kBest);
  char best_rate[48];
  std::snprintf(best_rate, sizeof best_rate, "%.1f steps/s", chart.points[chart.best].steps_per_s);
  r.Text(a.right + 16, note_y + 18, best_rate, kBest);
  return r;
}

}  // namespace pipescope::session
