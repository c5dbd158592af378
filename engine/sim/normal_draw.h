#pragma once
// Standard normal draws for the simulator's cost distributions, from 64 random bits by
// inverting the normal's CDF: a few multiplications and a table lookup, where Box-Muller
// takes a logarithm, a square root and a cosine (a third of a busy simulation's time).

#include <cstdint>

namespace pipescope::sim {

// The p-quantile of N(0, 1), p in (0, 1): Acklam's rational approximation (relative error
// under 1.2e-9), accurate far into the tails.
double NormalQuantile(double p);

// A draw of N(0, 1) from 64 uniformly random bits. The top 11 bits pick one of 2,048
// slices of equal probability and the next 52 place the draw inside it, interpolating the
// quantile linearly between the slice's ends (error under 0.003 sigma); the outermost
// slices on each side, where the quantile bends too fast to interpolate, use
// NormalQuantile itself.
double NormalFromBits(uint64_t bits);

}  // namespace pipescope::sim
