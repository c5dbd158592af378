#pragma once
// Image work functions on real pixels, as an input pipeline for image models does them:
// decode_jpeg (libjpeg-turbo), resize (bilinear), random_crop and random_flip (seeded
// from the element's content, so a run is reproducible whatever the order of elements).
// Images are the element's value, [height, width, channels], uint8 or float32.

#include "engine/spec/pipeline_spec.pb.h"
#include "engine/work/work_function.h"

namespace pipescope::engine {

class DecodeJpegFn : public WorkFunction {
 public:
  explicit DecodeJpegFn(std::string feature) : feature_(std::move(feature)) {}
  std::string name() const override { return "decode_jpeg"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;

 private:
  const std::string feature_;  // empty: the element's value
};

class ResizeFn : public WorkFunction {
 public:
  ResizeFn(int64_t height, int64_t width) : height_(height), width_(width) {}
  std::string name() const override { return "resize"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;

 private:
  const int64_t height_, width_;
};

class RandomCropFn : public WorkFunction {
 public:
  RandomCropFn(int64_t height, int64_t width, uint64_t seed)
      : height_(height), width_(width), seed_(seed) {}
  std::string name() const override { return "random_crop"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;

 private:
  const int64_t height_, width_;
  const uint64_t seed_;
};

class RandomFlipFn : public WorkFunction {
 public:
  explicit RandomFlipFn(uint64_t seed) : seed_(seed) {}
  std::string name() const override { return "random_flip"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;

 private:
  const uint64_t seed_;
};

}  // namespace pipescope::engine
