#include "engine/work/normalize.h"

namespace pipescope::engine {

template <typename T>
void Normalize::Transform(const T* src, float* dst, int64_t n) const {
  for (int64_t i = 0; i < n; ++i) dst[i] = (static_cast<float>(src[i]) - mean_) * inv_stddev_;
}

Status Normalize::Apply(Element& element, CancellationToken&) const {
  const Tensor& in = element.value;
  Tensor out(DType::kFloat32, in.shape());
  const int64_t n = in.num_elements();
  switch (in.dtype()) {
    case DType::kUint8:
      Transform(in.data<uint8_t>(), out.data<float>(), n);
      break;
    case DType::kInt64:
      Transform(in.data<int64_t>(), out.data<float>(), n);
      break;
    case DType::kFloat32:
      Transform(in.data<float>(), out.data<float>(), n);
      break;
    default:
      return InvalidArgument("normalize needs numeric data, got " +
                             std::string(DTypeName(in.dtype())) +
                             " (decode or unpack the record first)");
  }
  element.value = std::move(out);
  return Status::Ok();
}

}  // namespace pipescope::engine
