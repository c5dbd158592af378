#pragma once
// What a tf.train.Example (or SequenceExample) record holds, feature by feature: for
// `pipescope-cli inspect` and for error messages about missing or mistyped features.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "engine/core/status.h"

namespace pipescope::engine {

struct FeatureShape {
  std::string type;  // "bytes", "float", "int64" (or "bytes list" ... for sequence features)
  int64_t min_length = 0;
  int64_t max_length = 0;
};

struct RecordFeatures {
  std::string kind;  // "tf.Example", "tf.SequenceExample" or "" when neither parses
  std::map<std::string, FeatureShape> features;
};

// Parses `record` as an Example, else a SequenceExample; merges into `into` (lengths
// widen to cover every record seen).
void DescribeRecord(std::string_view record, RecordFeatures& into);

}  // namespace pipescope::engine
