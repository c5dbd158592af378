#pragma once
// Reading the two kinds of sampled series a trace holds, over a window of time:
// - a level (kBufferLevel): each point holds from its time until the next point. Points
//   come when the level changes, not on a period (record/sample_periods.h), so a mean of
//   the points would weigh a busy moment over a quiet stretch: the mean is weighed by time.
// - an amount per interval (kCpuTime): each point is what accumulated since the previous
//   point. A window's share of each interval is taken in proportion to their overlap, so
//   that a window's edges cost no more than a sample's resolution allows.

#include <cstdint>
#include <optional>

#include "instrumentation/trace/track.h"

namespace pipescope::trace {

// The time-weighted mean level over [t0, t1), from the first point at or before t0 (or the
// first point in the window when none came before). Empty when no point is at or before t1.
std::optional<double> MeanLevel(const Track& levels, int64_t t0, int64_t t1);

// The amount accumulated in [t0, t1). A series' first point stands for an interval as long
// as the one after it (the time since the sampling began is not recorded).
double AmountIn(const Track& amounts, int64_t t0, int64_t t1);

// Point k's amount as a share of its interval (busy nanoseconds over the nanoseconds since
// the previous point; the first point's interval as AmountIn takes it): nullopt for a point
// with no interval.
std::optional<double> ShareOfInterval(const Track& amounts, size_t k);

}  // namespace pipescope::trace
