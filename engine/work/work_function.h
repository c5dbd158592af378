#pragma once
// A map's function. Implementations do real work on the element's data so that what the
// timeline shows is what a real pipeline would do. Apply is called concurrently from
// several workers of a parallel map: implementations are immutable after construction.

#include <cstdint>
#include <string>

#include "engine/core/element.h"
#include "engine/core/status.h"
#include "engine/runtime/cancellation.h"

namespace pipescope::engine {

class WorkFunction {
 public:
  virtual ~WorkFunction() = default;
  virtual std::string name() const = 0;

  // Transforms one element in place. Errors say what the data was and what was expected.
  virtual Status Apply(Element& element, CancellationToken& cancellation) const = 0;

  // The batched form runs once per batch of `rows` elements (a map after batch, the
  // "vectorised map" of the tf.data performance guide). Functions without one are
  // rejected after batch by the spec validator.
  virtual bool has_batched_form() const { return false; }
  virtual Status ApplyBatched(Element& batch, int64_t rows, CancellationToken& cancellation) const {
    return Unimplemented(name() + " has no batched form");
  }
};

}  // namespace pipescope::engine
