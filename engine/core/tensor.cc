#include "engine/core/tensor.h"

#include <cstring>

namespace pipescope::engine {

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kInvalid:
      return "invalid";
    case DType::kInt64:
      return "int64";
    case DType::kFloat32:
      return "float32";
    case DType::kUint8:
      return "uint8";
    case DType::kString:
      return "string";
  }
  return "invalid";
}

size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kInt64:
      return 8;
    case DType::kFloat32:
      return 4;
    case DType::kUint8:
      return 1;
    default:
      return 0;
  }
}

Shape::Shape(std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) {
    if (rank_ < kMaxRank) dims_[rank_++] = d;
  }
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int i = 0; i < rank_; ++i) n *= dims_[i];
  return n;
}

Result<Shape> Shape::Prepend(int64_t leading) const {
  if (rank_ >= kMaxRank) {
    return InvalidArgument("cannot add a dimension to " + ToString() + ": rank limit " +
                           std::to_string(kMaxRank));
  }
  Shape s;
  s.rank_ = rank_ + 1;
  s.dims_[0] = leading;
  for (int i = 0; i < rank_; ++i) s.dims_[i + 1] = dims_[i];
  return s;
}

Result<Shape> Shape::Append(int64_t trailing) const {
  if (rank_ >= kMaxRank) {
    return InvalidArgument("cannot add a dimension to " + ToString() + ": rank limit " +
                           std::to_string(kMaxRank));
  }
  Shape s = *this;
  s.dims_[s.rank_++] = trailing;
  return s;
}

Shape Shape::DropFirst() const {
  Shape s;
  if (rank_ == 0) return s;
  s.rank_ = rank_ - 1;
  for (int i = 1; i < rank_; ++i) s.dims_[i - 1] = dims_[i];
  return s;
}

bool Shape::operator==(const Shape& other) const {
  if (rank_ != other.rank_) return false;
  for (int i = 0; i < rank_; ++i) {
    if (dims_[i] != other.dims_[i]) return false;
  }
  return true;
}

std::string Shape::ToString() const {
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(shape) {
  if (dtype == DType::kString) {
    strings_.resize(static_cast<size_t>(shape.num_elements()));
  } else {
    Allocate(static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype));
  }
}

void Tensor::Allocate(size_t bytes) {
  if (bytes > kInlineBytes) heap_.assign(bytes, std::byte{0});
}

Tensor Tensor::Int64(int64_t v) {
  Tensor t(DType::kInt64, Shape{});
  std::memcpy(t.raw(), &v, sizeof v);
  return t;
}

Tensor Tensor::Float32(float v) {
  Tensor t(DType::kFloat32, Shape{});
  std::memcpy(t.raw(), &v, sizeof v);
  return t;
}

Tensor Tensor::String(std::string v) {
  Tensor t;
  t.dtype_ = DType::kString;
  t.strings_.push_back(std::move(v));
  return t;
}

Tensor Tensor::Bytes(DType dtype, Shape shape, std::span<const std::byte> bytes) {
  Tensor t(dtype, shape);
  std::memcpy(t.raw(), bytes.data(), std::min(bytes.size(), t.byte_size()));
  return t;
}

size_t Tensor::byte_size() const {
  if (dtype_ == DType::kString) {
    size_t n = 0;
    for (const auto& s : strings_) n += s.size();
    return n;
  }
  return static_cast<size_t>(num_elements()) * DTypeSize(dtype_);
}

int64_t Tensor::scalar_int64() const {
  switch (dtype_) {
    case DType::kInt64:
      return *data<int64_t>();
    case DType::kFloat32:
      return static_cast<int64_t>(*data<float>());
    case DType::kUint8:
      return *data<uint8_t>();
    default:
      return 0;
  }
}

Result<int64_t> Tensor::Int64ScalarFor(std::string_view who) const {
  if (dtype_ != DType::kInt64 || num_elements() != 1) {
    return InvalidArgument(std::string(who) + " needs int64 scalar elements, got " +
                           std::string(DTypeName(dtype_)) + shape_.ToString());
  }
  return *data<int64_t>();
}

Result<Tensor> Tensor::Stack(std::span<const Tensor* const> rows) {
  if (rows.empty()) return InvalidArgument("cannot stack zero tensors");
  const Tensor& first = *rows[0];
  for (size_t i = 1; i < rows.size(); ++i) {
    const Tensor& r = *rows[i];
    if (r.dtype_ != first.dtype_ || !(r.shape_ == first.shape_)) {
      return InvalidArgument("cannot batch element " + std::to_string(i) + " of " +
                             std::string(DTypeName(r.dtype_)) + r.shape_.ToString() +
                             " with element 0 of " + std::string(DTypeName(first.dtype_)) +
                             first.shape_.ToString() + " (batched elements must match)");
    }
  }
  ASSIGN_OR_RETURN(Shape shape, first.shape_.Prepend(static_cast<int64_t>(rows.size())));
  Tensor out(first.dtype_, shape);
  if (first.dtype_ == DType::kString) {
    size_t k = 0;
    for (const Tensor* r : rows) {
      for (const auto& s : r->strings_) out.strings_[k++] = s;
    }
    return out;
  }
  const size_t row_bytes = first.byte_size();
  std::byte* dst = out.raw();
  for (const Tensor* r : rows) {
    std::memcpy(dst, r->raw(), row_bytes);
    dst += row_bytes;
  }
  return out;
}

Tensor Tensor::Row(int64_t i) const {
  Tensor out(dtype_, shape_.DropFirst());
  const int64_t per_row = out.num_elements();
  if (dtype_ == DType::kString) {
    for (int64_t k = 0; k < per_row; ++k) out.strings_[k] = strings_[i * per_row + k];
    return out;
  }
  const size_t row_bytes = out.byte_size();
  std::memcpy(out.raw(), raw() + static_cast<size_t>(i) * row_bytes, row_bytes);
  return out;
}

bool Tensor::operator==(const Tensor& other) const {
  if (dtype_ != other.dtype_ || !(shape_ == other.shape_)) return false;
  if (dtype_ == DType::kString) return strings_ == other.strings_;
  return std::memcmp(raw(), other.raw(), byte_size()) == 0;
}

}  // namespace pipescope::engine
