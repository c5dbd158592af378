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
  // A range's number (a record's index for other sources; 0 for batches): what a
  // mod_equals filter and from_element's repeat_by_value read where the engine reads the
  // element's int64 value.
  int64_t value = 0;
};

// Whether the n elements' ids are first, first + 1, ...: a run the trace records as one span.
// Without a branch per element, as most runs are (a source's records, a map's group) and a
// run may be a thousand records.
inline bool IdsAreConsecutive(const SimElement* elements, size_t n) {
  uint64_t mismatch = 0;
  for (size_t k = 0; k < n; ++k) mismatch |= elements[k].id - (elements[0].id + k);
  return mismatch == 0;
}

}  // namespace pipescope::sim
