#pragma once
// An element as the simulator sees it: no data, only what costs depend on.

#include <cstdint>

namespace pipescope::sim {

struct SimElement {
  uint64_t id = 0;    // like Element::id: unique in the run, fresh for a batch
  int64_t bytes = 0;  // payload
  int64_t rows = 1;   // > 1 for batches
  uint64_t key = 0;   // the content's identity (which record), for filters and caches
};

}  // namespace pipescope::sim
