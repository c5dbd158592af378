#include "engine/io/example_features.h"

#include <algorithm>

#include "engine/io/example.pb.h"

namespace pipescope::engine {
namespace {

void Widen(FeatureShape& shape, const std::string& type, int64_t length, bool first) {
  if (first) {
    shape = {type, length, length};
    return;
  }
  if (shape.type != type) shape.type = "mixed";
  shape.min_length = std::min(shape.min_length, length);
  shape.max_length = std::max(shape.max_length, length);
}

void Describe(const tf::Feature& f, std::string& type, int64_t& length) {
  switch (f.kind_case()) {
    case tf::Feature::kBytesList:
      type = "bytes";
      length = f.bytes_list().value_size();
      return;
    case tf::Feature::kFloatList:
      type = "float";
      length = f.float_list().value_size();
      return;
    case tf::Feature::kInt64List:
      type = "int64";
      length = f.int64_list().value_size();
      return;
    case tf::Feature::KIND_NOT_SET:
      break;
  }
  type = "empty";
  length = 0;
}

void Merge(const std::string& name, const std::string& type, int64_t length, RecordFeatures& into) {
  auto [it, inserted] = into.features.try_emplace(name);
  Widen(it->second, type, length, inserted);
}

}  // namespace

void DescribeRecord(std::string_view record, RecordFeatures& into) {
  tf::Example example;
  // An Example's only field is 1 (features); a SequenceExample also has field 2. Parse as
  // the richer message first and decide by what is there.
  tf::SequenceExample sequence;
  if (sequence.ParseFromArray(record.data(), static_cast<int>(record.size())) &&
      sequence.feature_lists().feature_list_size() > 0) {
    into.kind =
        into.kind.empty() || into.kind == "tf.SequenceExample" ? "tf.SequenceExample" : "mixed";
    for (const auto& [name, f] : sequence.context().feature()) {
      std::string type;
      int64_t length = 0;
      Describe(f, type, length);
      Merge(name, type, length, into);
    }
    for (const auto& [name, list] : sequence.feature_lists().feature_list()) {
      std::string type = list.feature_size() > 0 ? "" : "empty";
      int64_t ignored = 0;
      if (list.feature_size() > 0) Describe(list.feature(0), type, ignored);
      Merge(name, type + " list", list.feature_size(), into);
    }
    return;
  }
  if (example.ParseFromArray(record.data(), static_cast<int>(record.size())) &&
      example.has_features()) {
    into.kind = into.kind.empty() || into.kind == "tf.Example" ? "tf.Example" : "mixed";
    for (const auto& [name, f] : example.features().feature()) {
      std::string type;
      int64_t length = 0;
      Describe(f, type, length);
      Merge(name, type, length, into);
    }
    return;
  }
  into.kind = into.kind.empty() ? "raw" : into.kind;
}

}  // namespace pipescope::engine
