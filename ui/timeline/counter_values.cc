#include "ui/timeline/counter_values.h"

#include <algorithm>

#include "instrumentation/trace/sampled_series.h"

namespace pipescope::ui {

int64_t CounterWindowNs(const TimeAxis& axis) {
  return std::max<int64_t>(kMinCounterWindowNs, static_cast<int64_t>(axis.ns_per_pixel() * 4));
}

void CounterValues(const Lane& lane, const TimeAxis& axis, int pixels, int64_t known_ns,
                   std::vector<float>& values, SummaryCache* summaries) {
  values.assign(static_cast<size_t>(std::max(0, pixels)), 0.0f);
  const double px_ns = axis.ns_per_pixel();
  const int64_t window = CounterWindowNs(axis);
  const trace::Track* track = lane.tracks[0];
  double last_level = 0;
  const int known = axis.PixelsBefore(known_ns, pixels);
  // The device's busy time before each pixel edge, summed over its tracks (summaries only).
  const std::vector<const trace::Track*> busy_tracks =
      !lane.busy_tracks.empty()
          ? lane.busy_tracks
          : std::vector<const trace::Track*>(lane.tracks, lane.tracks + lane.track_count);
  std::vector<double> before;
  if (summaries != nullptr && lane.counter == CounterKind::kDeviceBusy && pixels > 0) {
    std::vector<double> covered(static_cast<size_t>(pixels), 0.0);
    for (const trace::Track* t : busy_tracks) {
      const auto& buckets = summaries->Of(*t, axis.t0, axis.t1, pixels);
      for (size_t q = 0; q < covered.size(); ++q)
        covered[q] += static_cast<double>(buckets[q].covered_ns);
    }
    before.assign(covered.size() + 1, 0.0);
    for (size_t q = 0; q < covered.size(); ++q) before[q + 1] = before[q] + covered[q];
  }
  // Busy time before x pixels from the left edge, the last pixel's taken in proportion.
  auto busy_before = [&](double x) {
    const auto q = static_cast<size_t>(x);
    return q >= before.size() - 1
               ? before.back()
               : before[q] + (x - static_cast<double>(q)) * (before[q + 1] - before[q]);
  };
  const double half_window_px = static_cast<double>(window) / 2 / px_ns;
  for (int p = 0; p < known; ++p) {
    const int64_t a = axis.t0 + static_cast<int64_t>(p * px_ns);
    const int64_t b = axis.t0 + static_cast<int64_t>((p + 1) * px_ns);
    double v = 0;
    switch (lane.counter) {
      case CounterKind::kBufferLevel: {
        // A rebuilt pipeline's op has a track per definition, one after the other in time:
        // the pixel reads the latest that had begun before its end.
        const trace::Track* latest = lane.tracks[0];
        for (int k = 1; k < lane.track_count; ++k) {
          if (lane.tracks[k]->first_start() < b) latest = lane.tracks[k];
        }
        if (latest != track) {
          track = latest;
          last_level = 0;
        }
        const size_t i = track->FirstStartingAtOrAfter(a);
        const size_t j = track->FirstStartingAtOrAfter(std::max(b, a + 1));
        if (j > i) {
          last_level = track->SumValues(i, j) / static_cast<double>(j - i);
        } else if (i > 0 && p == 0) {
          last_level = track->value(i - 1);
        } else if (i == 0) {
          last_level = 0;
        }
        v = last_level;
        break;
      }
      case CounterKind::kDeviceBusy: {
        // Kernels and copies on different streams may overlap: the sum is capped at 100%.
        const int64_t mid = (a + b) / 2;
        const double lo = p + 0.5 - half_window_px, hi = p + 0.5 + half_window_px;
        double covered = 0;
        if (!before.empty() && lo >= 0 && hi <= static_cast<double>(pixels)) {
          covered = busy_before(hi) - busy_before(lo);
        } else {
          const int64_t half = window / 2;
          for (const trace::Track* t : busy_tracks)
            covered += static_cast<double>(t->SumRange(mid - half, mid + half).covered_ns);
        }
        v = std::min(1.0, covered / static_cast<double>(window));
        break;
      }
      case CounterKind::kStorageBusy: {
        const int64_t mid = (a + b) / 2;
        v = std::min(1.0, trace::AmountIn(*track, mid - window / 2, mid + window / 2) /
                              static_cast<double>(window));
        break;
      }
    }
    values[static_cast<size_t>(p)] = static_cast<float>(v);
  }
}

}  // namespace pipescope::ui
