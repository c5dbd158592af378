#pragma once
// filter's mod_equals predicate, as the engine's filter and the simulator's (where it knows
// the values, over a range) both decide it.

#include <cstdint>

namespace pipescope::engine {

// Whether `value` % modulus == remainder, the remainder taken as non-negative (modulus ≥ 1,
// the validator's rule).
inline bool ModEqualsKeeps(int64_t value, int64_t modulus, int64_t remainder) {
  int64_t r = value % modulus;
  if (r < 0) r += modulus;
  return r == remainder;
}

}  // namespace pipescope::engine
