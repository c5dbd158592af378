#pragma once
// A dense n-dimensional array of one dtype, or a list of byte strings (kString).
// Scalars and tiny tensors live inline, so sources like `range` never allocate per element.
// Tensors are movable and copyable (deep copy); batching stacks them along a new axis.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/status.h"

namespace pipescope::engine {

enum class DType : uint8_t { kInvalid, kInt64, kFloat32, kUint8, kString };

std::string_view DTypeName(DType dtype);
// Bytes per value; 0 for kString and kInvalid.
size_t DTypeSize(DType dtype);

class Shape {
 public:
  static constexpr int kMaxRank = 6;
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);

  int rank() const { return rank_; }
  int64_t dim(int i) const { return dims_[i]; }
  int64_t num_elements() const;
  // A shape with `leading` prepended; error if the rank would exceed kMaxRank.
  Result<Shape> Prepend(int64_t leading) const;
  // The shape with `trailing` appended; error if the rank would exceed kMaxRank.
  Result<Shape> Append(int64_t trailing) const;
  // The shape without its first dimension (rank must be ≥ 1).
  Shape DropFirst() const;
  bool operator==(const Shape& other) const;
  std::string ToString() const;  // "[32,224,224,3]"

 private:
  std::array<int64_t, kMaxRank> dims_{};
  int rank_ = 0;
};

class Tensor {
 public:
  Tensor() = default;
  // Allocates a zero-filled tensor (or `shape.num_elements()` empty strings for kString).
  Tensor(DType dtype, Shape shape);

  static Tensor Int64(int64_t v);
  static Tensor Float32(float v);
  static Tensor String(std::string v);
  static Tensor Bytes(DType dtype, Shape shape, std::span<const std::byte> bytes);

  bool valid() const { return dtype_ != DType::kInvalid; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t byte_size() const;  // payload bytes (sum of string lengths for kString)

  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(raw());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(raw());
  }
  std::byte* raw() { return heap_.empty() ? inline_.data() : heap_.data(); }
  const std::byte* raw() const { return heap_.empty() ? inline_.data() : heap_.data(); }
  std::vector<std::string>& strings() { return strings_; }
  const std::vector<std::string>& strings() const { return strings_; }

  // Scalar accessors for tests and predicates; the tensor must hold exactly one value.
  int64_t scalar_int64() const;
  // The value of an int64 scalar, for an op that reads elements as numbers; otherwise an
  // error that `who` needs int64 scalars and says what the tensor is.
  Result<int64_t> Int64ScalarFor(std::string_view who) const;

  // Stacks same-dtype, same-shape tensors along a new leading axis (tf.data batch).
  // Errors name the first mismatching row.
  static Result<Tensor> Stack(std::span<const Tensor* const> rows);
  // Row `i` of the leading axis (tf.data unbatch); rank must be ≥ 1.
  Tensor Row(int64_t i) const;

  bool operator==(const Tensor& other) const;

 private:
  static constexpr size_t kInlineBytes = 16;
  void Allocate(size_t bytes);

  DType dtype_ = DType::kInvalid;
  Shape shape_;
  alignas(8) std::array<std::byte, kInlineBytes> inline_{};
  std::vector<std::byte> heap_;
  std::vector<std::string> strings_;
};

}  // namespace pipescope::engine
