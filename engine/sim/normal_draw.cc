#include "engine/sim/normal_draw.h"

#include <array>
#include <cmath>

namespace pipescope::sim {
namespace {

constexpr int kSliceBits = 11;
constexpr int kSlices = 1 << kSliceBits;
constexpr int kExactSlices = 4;  // on each side

// The quantile at each slice boundary, k / kSlices; the ends (+-infinity) are never read.
const std::array<double, kSlices + 1>& SliceBounds() {
  static const std::array<double, kSlices + 1> bounds = [] {
    std::array<double, kSlices + 1> b{};
    for (int k = 1; k < kSlices; ++k) b[k] = NormalQuantile(static_cast<double>(k) / kSlices);
    return b;
  }();
  return bounds;
}

}  // namespace

double NormalQuantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  // The tails in q = sqrt(-2 ln p); the body as a ratio of polynomials in (p - 1/2)^2.
  auto tail = [&](double tail_p) {
    const double q = std::sqrt(-2 * std::log(tail_p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  };
  if (p < kLow) return tail(p);
  if (p > 1 - kLow) return -tail(1 - p);
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double NormalFromBits(uint64_t bits) {
  const auto slice = static_cast<int>(bits >> (64 - kSliceBits));
  // The next 52 bits, as a fraction in (0, 1): never an end, so the tails stay finite.
  const double within =
      (static_cast<double>((bits >> 1) & ((uint64_t{1} << 52) - 1)) + 0.5) * 0x1.0p-52;
  if (slice < kExactSlices || slice >= kSlices - kExactSlices) {
    return NormalQuantile((slice + within) / kSlices);
  }
  const auto& bounds = SliceBounds();
  return bounds[slice] + within * (bounds[slice + 1] - bounds[slice]);
}

}  // namespace pipescope::sim
