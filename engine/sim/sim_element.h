#pragma once
// An element as the simulator sees it: no data, only what costs depend on.

#include <cstddef>
#include <cstdint>

namespace pipescope::sim {

struct SimElement {
  uint64_t id = 0;    // like Element::id: unique in the run, fresh for a batch
  int64_t bytes = 0;  // payload
  int64_t rows = 1;   // > 1 for batches
  uint64_t key = 0;   // the content's identity (which record), for filters and caches
};

// Whether the n elements' ids are first, first + 1, ...: a run the trace records as one span.
// Without a branch per element, as most runs are (a source's records, a map's group) and a
// run may be a thousand records; four independent accumulators, since the loop checks every
// element of such a run.
inline bool IdsAreConsecutive(const SimElement* elements, size_t n) {
  if (n == 0) return true;
  const uint64_t first = elements[0].id;
  uint64_t m0 = 0, m1 = 0, m2 = 0, m3 = 0;
  size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    m0 |= elements[k].id - (first + k);
    m1 |= elements[k + 1].id - (first + k + 1);
    m2 |= elements[k + 2].id - (first + k + 2);
    m3 |= elements[k + 3].id - (first + k + 3);
  }
  for (; k < n; ++k) m0 |= elements[k].id - (first + k);
  return (m0 | m1 | m2 | m3) == 0;
}

}  // namespace pipescope::sim
