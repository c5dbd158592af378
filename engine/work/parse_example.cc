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

ParseExample::ParseExample(std::vector<Wanted> wanted) : wanted_(std::move(wanted)) {
  for (const Wanted& w : wanted_) any_var_len_ = any_var_len_ || w.var_len;
}

Status ParseExample::ParseRow(const std::string& serialized, int64_t row,
                              std::vector<Tensor>& into) const {
  tf::Example example;
  if (!example.ParseFromString(serialized)) {
    return InvalidArgument("parse_example: the record (" + std::to_string(serialized.size()) +
                           " bytes) is not a tf.train.Example");
  }
  const auto& map = example.features().feature();
  for (size_t i = 0; i < wanted_.size(); ++i) {
    const Wanted& w = wanted_[i];
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
    // A var_len feature's length is its own: the single form shapes its tensor here.
    if (w.var_len) into[i] = Tensor(w.dtype, Shape{n});
    Tensor& t = into[i];
    const int64_t at = row * (w.var_len ? n : w.count);
    switch (w.dtype) {
      case DType::kInt64:
        std::memcpy(t.data<int64_t>() + at, f.int64_list().value().data(),
                    static_cast<size_t>(n) * 8);
        break;
      case DType::kFloat32:
        std::memcpy(t.data<float>() + at, f.float_list().value().data(),
                    static_cast<size_t>(n) * 4);
        break;
      default:
        for (int64_t k = 0; k < n; ++k)
          t.strings()[static_cast<size_t>(at + k)] = f.bytes_list().value(static_cast<int>(k));
        break;
    }
  }
  return Status::Ok();
}

void ParseExample::Replace(Element& element, std::vector<Tensor> values) const {
  std::vector<Feature> out;
  out.reserve(wanted_.size());
  for (size_t i = 0; i < wanted_.size(); ++i)
    out.push_back({wanted_[i].name, std::move(values[i])});
  element.features = std::move(out);
  element.value = Tensor();
}

Status ParseExample::Apply(Element& element, CancellationToken&) const {
  const Tensor& v = element.value;
  if (v.dtype() != DType::kString || v.strings().size() != 1) {
    return InvalidArgument(
        "parse_example needs a serialized tf.train.Example (a string scalar), got " +
        std::string(DTypeName(v.dtype())) + v.shape().ToString());
  }
  std::vector<Tensor> values;
  values.reserve(wanted_.size());
  for (const Wanted& w : wanted_) {
    values.emplace_back(w.var_len ? Tensor() : Tensor(w.dtype, MakeShape(w.shape)));
  }
  RETURN_IF_ERROR(ParseRow(v.strings()[0], 0, values));
  Replace(element, std::move(values));
  return Status::Ok();
}

Status ParseExample::ApplyBatched(Element& batch, int64_t rows, CancellationToken&) const {
  const Tensor& v = batch.value;
  if (v.dtype() != DType::kString || v.shape().rank() != 1 ||
      static_cast<int64_t>(v.strings().size()) != rows) {
    return InvalidArgument(
        "parse_example after batch needs a batch of serialized tf.train.Examples (a string "
        "vector), got " +
        std::string(DTypeName(v.dtype())) + v.shape().ToString());
  }
  std::vector<Tensor> values;
  values.reserve(wanted_.size());
  for (const Wanted& w : wanted_) {
    ASSIGN_OR_RETURN(Shape shape, MakeShape(w.shape).Prepend(rows));
    values.emplace_back(w.dtype, shape);
  }
  for (int64_t r = 0; r < rows; ++r) {
    RETURN_IF_ERROR(ParseRow(v.strings()[static_cast<size_t>(r)], r, values)
                        .WithContext("row " + std::to_string(r) + " of the batch"));
  }
  Replace(batch, std::move(values));
  return Status::Ok();
}

}  // namespace pipescope::engine
