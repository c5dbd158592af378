#include "ui/timeline/rate_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pipescope::ui {
namespace {

// Steps done by time t, counting the step interval that holds t by the share of it gone:
// k + (t - s_k) / (s_{k+1} - s_k). Valid for t within [s_0, s_last]. `from`: where the
// search may start, the answer for an earlier t (the pixels' windows move right, and a
// search from the last answer touches only the blocks between).
double StepsBy(const trace::Track& steps, int64_t t, size_t& from) {
  const size_t after = steps.FirstStartingAtOrAfter(t + 1, from);  // first start > t
  from = after;
  if (after == 0) return 0;
  const size_t k = after - 1;
  if (k + 1 >= steps.size()) return static_cast<double>(k);
  const auto interval = static_cast<double>(steps.start(k + 1) - steps.start(k));
  const double into = interval > 0 ? static_cast<double>(t - steps.start(k)) / interval : 0;
  return static_cast<double>(k) + std::clamp(into, 0.0, 1.0);
}

}  // namespace

RatePlot BuildRatePlot(const trace::Track& steps, const TimeAxis& axis) {
  RatePlot plot;
  const int pixels = std::max(1, static_cast<int>(axis.width));
  plot.rate.assign(static_cast<size_t>(pixels), std::numeric_limits<float>::quiet_NaN());
  plot.mean_in_view = std::numeric_limits<double>::quiet_NaN();
  if (steps.size() < 2) return plot;
  const int64_t first = steps.start(0), last = steps.start(steps.size() - 1);
  const double mean_interval =
      static_cast<double>(last - first) / static_cast<double>(steps.size() - 1);
  plot.window_ns =
      static_cast<int64_t>(std::max(axis.ns_per_pixel() * kRateWindowPixels, 2 * mean_interval));
  const double px_ns = axis.ns_per_pixel();
  size_t from_a = 0, from_b = 0;
  for (int p = 0; p < pixels; ++p) {
    const auto mid = static_cast<int64_t>(static_cast<double>(axis.t0) + (p + 0.5) * px_ns);
    if (mid < first || mid > last) continue;
    // The window, shortened where it runs past the first or last step: the rate there is
    // what the steps inside say, not diluted by time with no steps known.
    const int64_t a = std::max(first, mid - plot.window_ns / 2);
    const int64_t b = std::min(last, mid + plot.window_ns / 2);
    if (b <= a) continue;
    const double rate = (StepsBy(steps, b, from_b) - StepsBy(steps, a, from_a)) /
                        (static_cast<double>(b - a) / 1e9);
    plot.rate[static_cast<size_t>(p)] = static_cast<float>(rate);
    plot.max = std::max(plot.max, rate);
  }
  plot.axis_top = engine::RoundAxisTop(plot.max);
  const int64_t a = std::max(first, axis.t0), b = std::min(last, axis.t1);
  from_a = from_b = 0;
  plot.mean_in_view = b > a ? (StepsBy(steps, b, from_b) - StepsBy(steps, a, from_a)) /
                                  (static_cast<double>(b - a) / 1e9)
                            : std::numeric_limits<double>::quiet_NaN();
  return plot;
}

}  // namespace pipescope::ui
