#include "engine/work/image_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/core/content_hash.h"
#include "engine/work/jpeg_codec.h"

namespace pipescope::engine {
namespace {

struct ImageView {
  int64_t height, width, channels;
};

Result<ImageView> ViewOf(const Tensor& t, const std::string& fn) {
  if ((t.dtype() != DType::kUint8 && t.dtype() != DType::kFloat32) || t.shape().rank() != 3) {
    return InvalidArgument(
        fn + " needs an image [height, width, channels] of uint8 or float32, got " +
        std::string(DTypeName(t.dtype())) + t.shape().ToString() + " (decode_jpeg first)");
  }
  return ImageView{t.shape().dim(0), t.shape().dim(1), t.shape().dim(2)};
}

// A per-element random number from the seed and the element's first bytes: the same
// element gets the same crop in every run, in any order.
uint64_t ElementRandom(const Tensor& t, uint64_t seed) {
  return HashTensor(t, seed * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(t.byte_size()), 256);
}

template <typename T>
void Bilinear(const T* src, ImageView in, float* dst, int64_t out_h, int64_t out_w) {
  // Half-pixel centres, as tf.image.resize (and TF2's resize_bilinear) samples.
  const double sy = static_cast<double>(in.height) / static_cast<double>(out_h);
  const double sx = static_cast<double>(in.width) / static_cast<double>(out_w);
  const int64_t c = in.channels;
  for (int64_t y = 0; y < out_h; ++y) {
    const double fy = std::clamp((static_cast<double>(y) + 0.5) * sy - 0.5, 0.0,
                                 static_cast<double>(in.height - 1));
    const auto y0 = static_cast<int64_t>(fy);
    const int64_t y1 = std::min(y0 + 1, in.height - 1);
    const double wy = fy - static_cast<double>(y0);
    for (int64_t x = 0; x < out_w; ++x) {
      const double fx = std::clamp((static_cast<double>(x) + 0.5) * sx - 0.5, 0.0,
                                   static_cast<double>(in.width - 1));
      const auto x0 = static_cast<int64_t>(fx);
      const int64_t x1 = std::min(x0 + 1, in.width - 1);
      const double wx = fx - static_cast<double>(x0);
      for (int64_t k = 0; k < c; ++k) {
        auto at = [&](int64_t yy, int64_t xx) {
          return static_cast<double>(src[(yy * in.width + xx) * c + k]);
        };
        const double top = at(y0, x0) * (1 - wx) + at(y0, x1) * wx;
        const double bottom = at(y1, x0) * (1 - wx) + at(y1, x1) * wx;
        dst[(y * out_w + x) * c + k] = static_cast<float>(top * (1 - wy) + bottom * wy);
      }
    }
  }
}

}  // namespace

Status DecodeJpegFn::Apply(Element& element, CancellationToken&) const {
  const Tensor* encoded = &element.value;
  size_t feature_index = element.features.size();
  if (!feature_.empty()) {
    for (size_t i = 0; i < element.features.size(); ++i) {
      if (element.features[i].name == feature_) feature_index = i;
    }
    if (feature_index == element.features.size()) {
      return InvalidArgument("decode_jpeg: the element has no feature \"" + feature_ +
                             "\" (parse_example first)");
    }
    encoded = &element.features[feature_index].value;
  }
  if (encoded->dtype() != DType::kString || encoded->strings().size() != 1) {
    return InvalidArgument("decode_jpeg needs JPEG bytes (a string scalar), got " +
                           std::string(DTypeName(encoded->dtype())) + encoded->shape().ToString());
  }
  const std::string& jpeg = encoded->strings()[0];
  ASSIGN_OR_RETURN(JpegSize size, ReadJpegSize(jpeg));
  Tensor pixels(DType::kUint8, Shape{size.height, size.width, 3});
  RETURN_IF_ERROR(DecodeJpegInto(jpeg, size, pixels.data<uint8_t>()));
  if (feature_index < element.features.size()) {
    element.features.erase(element.features.begin() + static_cast<std::ptrdiff_t>(feature_index));
  }
  element.value = std::move(pixels);
  return Status::Ok();
}

Status ResizeFn::Apply(Element& element, CancellationToken&) const {
  ASSIGN_OR_RETURN(ImageView in, ViewOf(element.value, "resize"));
  Tensor out(DType::kFloat32, Shape{height_, width_, in.channels});
  if (element.value.dtype() == DType::kUint8) {
    Bilinear(element.value.data<uint8_t>(), in, out.data<float>(), height_, width_);
  } else {
    Bilinear(element.value.data<float>(), in, out.data<float>(), height_, width_);
  }
  element.value = std::move(out);
  return Status::Ok();
}

Status RandomCropFn::Apply(Element& element, CancellationToken&) const {
  ASSIGN_OR_RETURN(ImageView in, ViewOf(element.value, "random_crop"));
  if (in.height < height_ || in.width < width_) {
    return InvalidArgument("random_crop: a " + std::to_string(in.height) + "x" +
                           std::to_string(in.width) + " image is smaller than the " +
                           std::to_string(height_) + "x" + std::to_string(width_) +
                           " crop (resize first, or crop less)");
  }
  const uint64_t r = ElementRandom(element.value, seed_);
  const auto oy = static_cast<int64_t>(r % static_cast<uint64_t>(in.height - height_ + 1));
  const auto ox = static_cast<int64_t>((r >> 32) % static_cast<uint64_t>(in.width - width_ + 1));
  const size_t value_bytes = DTypeSize(element.value.dtype());
  Tensor out(element.value.dtype(), Shape{height_, width_, in.channels});
  const size_t row_bytes = static_cast<size_t>(width_ * in.channels) * value_bytes;
  for (int64_t y = 0; y < height_; ++y) {
    std::memcpy(out.raw() + static_cast<size_t>(y) * row_bytes,
                element.value.raw() +
                    static_cast<size_t>(((oy + y) * in.width + ox) * in.channels) * value_bytes,
                row_bytes);
  }
  element.value = std::move(out);
  return Status::Ok();
}

Status RandomFlipFn::Apply(Element& element, CancellationToken&) const {
  ASSIGN_OR_RETURN(ImageView in, ViewOf(element.value, "random_flip"));
  if ((ElementRandom(element.value, seed_) & 1) == 0) return Status::Ok();
  const size_t px = static_cast<size_t>(in.channels) * DTypeSize(element.value.dtype());
  std::byte* data = element.value.raw();
  std::vector<std::byte> tmp(px);
  for (int64_t y = 0; y < in.height; ++y) {
    std::byte* row = data + static_cast<size_t>(y * in.width) * px;
    for (int64_t x = 0; x < in.width / 2; ++x) {
      std::byte* a = row + static_cast<size_t>(x) * px;
      std::byte* b = row + static_cast<size_t>(in.width - 1 - x) * px;
      std::memcpy(tmp.data(), a, px);
      std::memcpy(a, b, px);
      std::memcpy(b, tmp.data(), px);
    }
  }
  return Status::Ok();
}

}  // namespace pipescope::engine
