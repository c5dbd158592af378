#pragma once
// An element as the simulator sees it: no data, only what costs depend on.

#include <cstddef>
#include <cstdint>

namespace pipescope::sim {

struct SimElement {
  SimElement() = default;
  explicit SimElement(uint64_t id_, int64_t bytes_ = 0, uint64_t key_ = 0, int64_t value_ = 0)
      : id(id_), bytes(bytes_), key(key_), value(value_) {}

  uint64_t id = 0;    // like Element::id: unique in the run, fresh for a batch
  int64_t bytes = 0;  // payload
  uint64_t key = 0;   // the content's identity (which record), for filters and caches
  union {
    // A range's number (a record's index for other sources): what a mod_equals filter and
    // from_element's repeat_by_value read where the engine reads the element's int64 value.
    int64_t value = 0;
    // For an element that holds rows (a batch, a vector a map made), which nothing reads as
    // a number: its rows' leading dimension (a batch of batches' inner batch size, the
    // length its padded rows were padded to); 1 for rows that are records.
    int64_t row_length;
  };
  int32_t rows = 1;  // records it holds (> 1 for batches): what per-row costs count
  // Its leading dimension, which an unbatch splits it along: a batch's elements, a vector's
  // entries (1 for a record). Not `rows`: a batch of three batches of two has length 3,
  // rows 6.
  int32_t length = 1;
};
// Runs of a thousand elements are walked on every hop (ids for the trace, totals for a
// batch): a larger element leaves the first level of cache.
static_assert(sizeof(SimElement) == 40);

// Whether the n elements' ids are first, first + 1, ...: a run the trace records as one span.
// Without a branch per element, as most runs are (a source's records, a map's group) and a
// run may be a thousand records.
inline bool IdsAreConsecutive(const SimElement* elements, size_t n) {
  uint64_t mismatch = 0;
  for (size_t k = 0; k < n; ++k) mismatch |= elements[k].id - (elements[0].id + k);
  return mismatch == 0;
}

}  // namespace pipescope::sim
