#include "instrumentation/gpu/device_activity.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pipescope::gpu {

ClockAlignment FitClockAlignment(const std::vector<ClockPair>& pairs) {
  ClockAlignment a;
  if (pairs.empty()) return a;
  int64_t tightest = std::numeric_limits<int64_t>::max();
  for (const auto& p : pairs) tightest = std::min(tightest, p.host_after_ns - p.host_before_ns);
  // A pair bracketed by more than twice the tightest (plus 1 us of slack) was disturbed.
  const int64_t limit = 2 * std::max<int64_t>(tightest, 0) + 1'000;
  std::vector<const ClockPair*> used;
  for (const auto& p : pairs) {
    if (p.host_after_ns - p.host_before_ns <= limit) used.push_back(&p);
  }
  a.gpu_origin_ns = used.front()->gpu_ns;
  // Fit in coordinates relative to the first pair, where doubles are exact enough.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double host0 = static_cast<double>(used.front()->host_before_ns);
  for (const ClockPair* p : used) {
    const double x = static_cast<double>(static_cast<int64_t>(p->gpu_ns - a.gpu_origin_ns));
    const double y =
        (static_cast<double>(p->host_before_ns) + static_cast<double>(p->host_after_ns)) / 2 -
        host0;
    sx += x, sy += y, sxx += x * x, sxy += x * y;
    a.uncertainty_ns = std::max(a.uncertainty_ns, (p->host_after_ns - p->host_before_ns + 1) / 2);
  }
  const double n = static_cast<double>(used.size());
  const double var = sxx - sx * sx / n;
  a.scale = used.size() >= 2 && var > 0 ? (sxy - sx * sy / n) / var : 1.0;
  // A rate needs readings apart: over less than 10 ms (the back-to-back readings taken at
  // start-up) the bracket noise swamps it. And no pair of clocks drifts by a percent; a
  // fit that says so is noise too. CUPTI's conversion was seen off by 0.09%.
  const double span =
      static_cast<double>(static_cast<int64_t>(used.back()->gpu_ns - used.front()->gpu_ns));
  if (!std::isfinite(a.scale) || std::fabs(span) < 1e7 || std::fabs(a.scale - 1) > 1e-2)
    a.scale = 1;
  a.offset_ns = host0 + (sy - a.scale * sx) / n;
  return a;
}

record::Event ToTraceEvent(const DeviceActivity& activity, const ClockAlignment& clock) {
  record::EventKind kind = record::EventKind::kGpuKernel;
  if (activity.kind == ActivityKind::kMemcpy) kind = record::EventKind::kGpuMemcpy;
  if (activity.kind == ActivityKind::kMemset) kind = record::EventKind::kGpuMemset;
  const int64_t start = clock.ToHostNs(activity.start_gpu_ns);
  const int64_t end = std::max(start, clock.ToHostNs(activity.end_gpu_ns));
  return record::Event{static_cast<uint64_t>(std::max<int64_t>(start, 0)),
                       static_cast<uint64_t>(std::max<int64_t>(end, 0)),
                       activity.correlation,
                       static_cast<uint32_t>(std::min<uint64_t>(activity.bytes, UINT32_MAX)),
                       record::kDeviceOp,
                       kind,
                       record::kFlagTimesInNs};
}

namespace {

// Sorts and merges in place; returns the merged, disjoint intervals clipped to [t0, t1).
std::vector<Interval> Merge(std::vector<Interval> v, int64_t t0, int64_t t1) {
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (Interval i : v) {
    i.start = std::max(i.start, t0);
    i.end = std::min(i.end, t1);
    if (i.end <= i.start) continue;
    if (!out.empty() && i.start <= out.back().end) {
      out.back().end = std::max(out.back().end, i.end);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

}  // namespace

std::vector<uint32_t> UtilizationPerWindow(std::vector<Interval> intervals, int64_t t0, int64_t t1,
                                           int64_t window_ns) {
  std::vector<uint32_t> out;
  if (t1 <= t0 || window_ns <= 0) return out;
  const auto merged = Merge(std::move(intervals), t0, t1);
  size_t k = 0;
  for (int64_t w = t0; w < t1; w += window_ns) {
    const int64_t w_end = std::min(t1, w + window_ns);
    int64_t busy = 0;
    while (k < merged.size() && merged[k].end <= w) ++k;
    for (size_t j = k; j < merged.size() && merged[j].start < w_end; ++j) {
      busy += std::min(merged[j].end, w_end) - std::max(merged[j].start, w);
    }
    out.push_back(static_cast<uint32_t>(busy * 1000 / (w_end - w)));
  }
  return out;
}

}  // namespace pipescope::gpu
