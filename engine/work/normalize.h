#pragma once
// normalize(mean, stddev): (x - mean) / stddev on every value of the element, as float32.

#include "engine/work/work_function.h"

namespace pipescope::engine {

class Normalize : public WorkFunction {
 public:
  Normalize(float mean, float stddev) : mean_(mean), inv_stddev_(1.0f / stddev) {}
  std::string name() const override { return "normalize"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;
  bool has_batched_form() const override { return true; }
  Status ApplyBatched(Element& batch, int64_t rows,
                      CancellationToken& cancellation) const override {
    return Apply(batch, cancellation);  // elementwise: a batch is just a bigger tensor
  }

 private:
  template <typename T>
  void Transform(const T* src, float* dst, int64_t n) const;
  const float mean_;
  const float inv_stddev_;
};

}  // namespace pipescope::engine
