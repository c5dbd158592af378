#include "instrumentation/trace/rate_interval.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pipescope::trace {

double StudentT95(int dof) {
  // t_{0.975} for 1..30 degrees of freedom; beyond, the normal's 1.96 is within 2%.
  static constexpr double kT[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                  2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                  2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                  2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) dof = 1;
  return dof <= 30 ? kT[dof - 1] : 1.96;
}

namespace {

// Mean and the 95% half width of the mean of `values` (at least two).
std::pair<double, double> MeanInterval(const std::vector<double>& values) {
  const double n = static_cast<double>(values.size());
  double mean = 0;
  for (double v : values) mean += v;
  mean /= n;
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  const double sd = std::sqrt(ss / (n - 1));
  return {mean, StudentT95(static_cast<int>(values.size()) - 1) * sd / std::sqrt(n)};
}

}  // namespace

RateInterval StartsInterval(const std::vector<int64_t>& starts, double per_s) {
  return StartsInterval(
      starts.size(), [&starts](size_t i) { return starts[i]; }, per_s);
}

RateInterval StartsInterval(size_t count, const std::function<int64_t(size_t)>& start_at,
                            double per_s) {
  RateInterval r{per_s, per_s, 1};
  if (count < 3 || per_s <= 0) return r;
  const size_t gaps = count - 1;
  const size_t batches = std::min<size_t>(10, gaps);
  // Each batch takes gaps / batches consecutive gaps; the first ones take one more.
  std::vector<double> mean_gap;
  size_t at = 0;
  for (size_t b = 0; b < batches; ++b) {
    const size_t size = gaps / batches + (b < gaps % batches ? 1 : 0);
    mean_gap.push_back(static_cast<double>(start_at(at + size) - start_at(at)) /
                       static_cast<double>(size));
    at += size;
  }
  const auto [mean, half] = MeanInterval(mean_gap);
  if (mean <= 0) return r;
  r.half_width = per_s * half / mean;  // the same relative width, for the rate
  return r;
}

RateInterval PeriodsInterval(const std::vector<int64_t>& edges, const std::vector<int64_t>& events,
                             double per_s) {
  RateInterval r{per_s, per_s, 1};
  if (events.size() < 2 || edges.size() != events.size() + 1 || per_s <= 0) return r;
  std::vector<double> mean_gap;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i] <= 0) return r;  // a period without an event has no mean gap
    mean_gap.push_back(static_cast<double>(edges[i + 1] - edges[i]) /
                       static_cast<double>(events[i]));
  }
  const auto [mean, half] = MeanInterval(mean_gap);
  if (mean <= 0) return r;
  r.half_width = per_s * half / mean;
  return r;
}

RateInterval CombineRuns(const std::vector<RateInterval>& runs) {
  if (runs.empty()) return {};
  if (runs.size() == 1) return runs.front();
  std::vector<double> rates;
  double within = 0;
  for (const RateInterval& r : runs) {
    rates.push_back(r.per_s);
    within += r.half_width * r.half_width;
  }
  const auto [mean, between] = MeanInterval(rates);
  const double n = static_cast<double>(runs.size());
  return {mean, std::max(between, std::sqrt(within) / n), static_cast<int>(runs.size())};
}

double DifferenceHalfWidth(const RateInterval& a, const RateInterval& b) {
  return std::hypot(a.half_width, b.half_width);
}

bool ClearlyFaster(const RateInterval& candidate, const RateInterval& base, double min_gain) {
  return candidate.per_s - base.per_s >
         std::max(min_gain * base.per_s, DifferenceHalfWidth(candidate, base));
}

std::string StepRateText(const RateInterval& r) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f ± %.1f steps/s", r.per_s, r.half_width);
  return text;
}

}  // namespace pipescope::trace
