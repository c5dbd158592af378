#include "engine/work/parse_example.h"

#include <cstring>

#include "engine/io/example.pb.h"

namespace pipescope::engine {
namespace {

const char* KindName(const tf::Feature& f) {
  switch (f.kind_case()) {
    case tf::Feature::kBytesList:
      return "bytes";
    case tf::Feature::kFloatList:
      return "float";
    case tf::Feature::kInt64List:
      return "int64";
    case tf::Feature::KIND_NOT_SET:
      break;
  }
  return "empty";
}

Shape MakeShape(const std::vector<int64_t>& dims) {
  Shape s;
  for (int64_t d : dims) s = s.Append(d).value();  // rank was checked by Create
  return s;
}

}  // namespace

Result<std::unique_ptr<WorkFunction>> ParseExample::Create(const spec::ParseExample& config) {
  std::vector<Wanted> wanted;
  for (const auto& f : config.features()) {
    Wanted w;
    w.name = f.name();
    if (f.dtype() == "int64") {
      w.dtype = DType::kInt64;
    } else if (f.dtype() == "float") {
      w.dtype = DType::kFloat32;
    } else if (f.dtype() == "bytes") {
      w.dtype = DType::kString;
    } else {
      return InvalidArgument("parse_example: feature \"" + f.name() + "\" has dtype \"" +
                             f.dtype() + "\" (use int64, float or bytes)");
    }
    if (f.shape_size() > Shape::kMaxRank - 1) {
      return InvalidArgument("parse_example: feature \"" + f.name() + "\" has too many dimensions");
    }
    for (int64_t d : f.shape()) {
      if (d < 0)
        return InvalidArgument("parse_example: feature \"" + f.name() +
                               "\" has a negative dimension");
      w.shape.push_back(d);
      w.count *= d;
    }
    w.var_len = f.var_len();
    wanted.push_back(std::move(w));
  }
  if (wanted.empty()) return InvalidArgument("parse_example: list the features to parse");
  return std::unique_ptr<WorkFunction>(new ParseExample(std::move(wanted)));
}

Status ParseExample::Apply(Element& element, CancellationToken&) const {
  const Tensor& v = element.value;
  if (v.dtype() != DType::kString || v.strings().size() != 1) {
    return InvalidArgument(
        "parse_example needs a serialized tf.train.Example (a string scalar), got " +
        std::string(DTypeName(v.dtype())) + v.shape().ToString());
  }
  tf::Example example;
  if (!example.ParseFromString(v.strings()[0])) {
    return InvalidArgument("parse_example: the record (" + std::to_string(v.strings()[0].size()) +
                           " bytes) is not a tf.train.Example");
  }
  const auto& map = example.features().feature();
  std::vector<Feature> out;
  out.reserve(wanted_.size());
  for (const Wanted& w : wanted_) {
    auto it = map.find(w.name);
    if (it == map.end())
      return InvalidArgument("parse_example: feature \"" + w.name + "\" is missing");
    const tf::Feature& f = it->second;
    int64_t n = 0;
    switch (w.dtype) {
      case DType::kInt64:
        n = f.kind_case() == tf::Feature::kInt64List ? f.int64_list().value_size() : -1;
        break;
      case DType::kFloat32:
        n = f.kind_case() == tf::Feature::kFloatList ? f.float_list().value_size() : -1;
        break;
      default:
        n = f.kind_case() == tf::Feature::kBytesList ? f.bytes_list().value_size() : -1;
        break;
    }
    if (n < 0) {
      return InvalidArgument("parse_example: feature \"" + w.name + "\" is " + KindName(f) +
                             ", expected " +
                             (w.dtype == DType::kInt64     ? "int64"
                              : w.dtype == DType::kFloat32 ? "float"
                                                           : "bytes"));
    }
    if (!w.var_len && n != w.count) {
      return InvalidArgument("parse_example: feature \"" + w.name + "\" has " + std::to_string(n) +
                             " values, its shape needs " + std::to_string(w.count));
    }
    const Shape shape = w.var_len ? Shape{n} : MakeShape(w.shape);
    Tensor t(w.dtype, shape);
    switch (w.dtype) {
      case DType::kInt64:
        std::memcpy(t.data<int64_t>(), f.int64_list().value().data(), static_cast<size_t>(n) * 8);
        break;
      case DType::kFloat32:
        std::memcpy(t.data<float>(), f.float_list().value().data(), static_cast<size_t>(n) * 4);
        break;
      default:
        for (int64_t i = 0; i < n; ++i)
          t.strings()[static_cast<size_t>(i)] = f.bytes_list().value(static_cast<int>(i));
        break;
    }
    out.push_back({w.name, std::move(t)});
  }
  element.features = std::move(out);
  element.value = Tensor();
  return Status::Ok();
}

}  // namespace pipescope::engine
