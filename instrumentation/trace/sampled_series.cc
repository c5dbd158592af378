#include "instrumentation/trace/sampled_series.h"

#include <algorithm>

namespace pipescope::trace {

std::optional<double> MeanLevel(const Track& levels, int64_t t0, int64_t t1) {
  if (levels.empty() || t1 <= t0) return std::nullopt;
  size_t i = levels.FirstStartingAtOrAfter(t0);
  if (i > 0) --i;  // the point whose level holds at t0
  if (levels.start(i) >= t1) return std::nullopt;
  const int64_t from = std::max(t0, levels.start(i));
  double weighted = 0;
  for (size_t k = i; k < levels.size() && levels.start(k) < t1; ++k) {
    const int64_t a = std::max(from, levels.start(k));
    const int64_t b = k + 1 < levels.size() ? std::min(t1, levels.start(k + 1)) : t1;
    if (b > a) weighted += static_cast<double>(levels.value(k)) * static_cast<double>(b - a);
  }
  return weighted / static_cast<double>(t1 - from);
}

namespace {

// Where point k's interval begins: the previous point, or for the first one as long before
// it as the next one comes after (itself where it is the only one).
int64_t IntervalBegin(const Track& amounts, size_t k) {
  const int64_t end = amounts.start(k);
  if (k > 0) return amounts.start(k - 1);
  return amounts.size() > 1 ? end - (amounts.start(1) - end) : end;
}

}  // namespace

double AmountIn(const Track& amounts, int64_t t0, int64_t t1) {
  const size_t n = amounts.size();
  if (n == 0 || t1 <= t0) return 0;
  size_t k = amounts.FirstStartingAtOrAfter(t0);  // the first interval that ends in the window
  double total = 0;
  for (; k < n; ++k) {
    const int64_t end = amounts.start(k);
    const int64_t begin = IntervalBegin(amounts, k);
    if (begin >= t1) break;
    const double value = amounts.value(k);
    if (end <= begin) {  // a point with no interval: all of it, where it lies
      if (end >= t0 && end < t1) total += value;
      continue;
    }
    const int64_t overlap = std::min(end, t1) - std::max(begin, t0);
    if (overlap > 0)
      total += value * static_cast<double>(overlap) / static_cast<double>(end - begin);
  }
  return total;
}

std::optional<double> ShareOfInterval(const Track& amounts, size_t k) {
  if (k >= amounts.size()) return std::nullopt;
  const int64_t interval = amounts.start(k) - IntervalBegin(amounts, k);
  if (interval <= 0) return std::nullopt;
  return static_cast<double>(amounts.value(k)) / static_cast<double>(interval);
}

}  // namespace pipescope::trace
