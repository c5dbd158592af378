#pragma once
// The timeline's mapping between time and pixels, and the navigation that changes it:
// zoom around a point, pan by pixels, fit. Plain arithmetic without Qt or ImGui, so that
// it is unit tested on its own.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "engine/core/duration.h"

namespace pipescope::ui {

struct TimeAxis {
  static constexpr double kMinSpanNs = 100;   // 100 ns across the screen at most zoom
  static constexpr double kMaxSpanNs = 1e13;  // ~3 hours

  int64_t t0 = 0;  // time at the left edge of the lanes
  int64_t t1 = 1'000'000'000;
  float x = 0;  // pixel of t0
  float width = 1;

  double span() const { return static_cast<double>(t1 - t0); }
  double ns_per_pixel() const { return span() / std::max(1.0f, width); }
  float ToPixel(int64_t t) const {
    return x + static_cast<float>(static_cast<double>(t - t0) / span() * width);
  }
  int64_t ToTime(float px) const {
    return t0 + static_cast<int64_t>(std::llround((px - x) / width * span()));
  }

  // How many of the `pixels` from the left edge start before `t`: the pixels a lane may paint
  // when nothing is known past t (a live run's "now"; the future must not look like a stall).
  int PixelsBefore(int64_t t, int pixels) const {
    if (t <= t0) return 0;
    return static_cast<int>(
        std::min<double>(pixels, std::ceil(static_cast<double>(t - t0) / ns_per_pixel())));
  }

  // Scales the span by `factor` (< 1 zooms in) keeping the time under pixel `px` in place.
  void ZoomAround(double factor, float px) {
    const double at_fraction = std::clamp((px - x) / width, 0.0f, 1.0f);
    const double at = static_cast<double>(t0) + span() * at_fraction;
    const double new_span = std::clamp(span() * factor, kMinSpanNs, kMaxSpanNs);
    t0 = static_cast<int64_t>(std::llround(at - new_span * at_fraction));
    t1 = static_cast<int64_t>(std::llround(at + new_span * (1 - at_fraction)));
  }
  // Moves the view so that content moves `pixels` to the right (dragging right shows
  // earlier time).
  void PanPixels(float pixels) {
    const auto shift = static_cast<int64_t>(std::llround(pixels / width * span()));
    t0 -= shift;
    t1 -= shift;
  }
  void Fit(int64_t duration_ns) {
    t0 = 0;
    t1 = std::max<int64_t>(duration_ns, 1'000);
  }
  // Keeps the span, ending at `t` (a live view following the newest data).
  void EndAt(int64_t t) {
    const int64_t s = t1 - t0;
    t1 = std::max(t, s);
    t0 = t1 - s;
  }

  // The distance between labelled ticks: the smallest step of a 1-2-5 grid that keeps
  // them at least 100 px apart.
  double TickStep() const {
    const double raw = span() / std::max(1.0f, width / 100.0f);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double r = raw / magnitude;
    return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * magnitude;
  }
};

// Durations on the axis, in tooltips and docks: the engine's readable form.
using engine::FormatDuration;
using engine::FormatTimeAt;

}  // namespace pipescope::ui
