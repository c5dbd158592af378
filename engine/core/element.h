#pragma once
// One element flowing through a pipeline: a primary value and, for parsed records, named
// features (like the dict tf.io.parse_example returns). `id` is unique within a run and
// lets the instrumentation follow one element through every op; ops that make a new
// element out of several (batch) give it a fresh id.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace pipescope::engine {

struct Feature {
  std::string name;
  Tensor value;
  bool operator==(const Feature&) const = default;
};

struct Element {
  uint64_t id = 0;
  Tensor value;
  std::vector<Feature> features;

  // A key that identifies the element's content (not its id): used by tests and by the
  // stress test to compare multisets of outputs.
  std::string ContentKey() const;
  // Payload bytes of the value and every feature.
  size_t ByteSize() const;
};

// One element made of `rows` (a batch): each component, the value and each feature by name,
// combined across the rows by `combine` (stacked; padded, then stacked). Errors say which
// component and which row lacks a feature.
using CombineComponent = std::function<Result<Tensor>(std::span<const Tensor* const> parts)>;
Result<Element> CombineRows(const std::vector<Element>& rows, uint64_t id,
                            const CombineComponent& combine);

// The component whose leading dimension counts an element's rows: its value, or its first
// feature where it has no value (a parsed record).
const Tensor& LeadComponent(const Element& e);

// Row `row` of a batch: each component's row (tf.data unbatch). Components of rank ≥ 1.
Element RowOf(const Element& batch, int64_t row, uint64_t id);

// zip: `first` (keeping its id and value) with `second`'s value added as the feature
// `second_name` and `second`'s features beside it. Errors where a name would come twice.
Result<Element> ZipElements(Element first, const Element& second, const std::string& second_name);

// One JSON object per element for `pipescope-cli run --print`: small tensors are written
// in full, large ones as {"dtype","shape","bytes"} so a line stays readable.
std::string ElementToJson(const Element& element);

}  // namespace pipescope::engine
