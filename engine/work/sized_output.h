#pragma once
// A function whose call returns an array of a size the code fixes (spec
// WorkFunction.output_bytes): a __getitem__'s sample, a function modelled by its decode that
// ends in a resize to 224×224. The work runs, then its result gives way to a new array of
// that many bytes per row, written as numpy's allocation writes it, so that the buffers
// after it hold what the real pipeline's hold.

#include <cstdint>
#include <memory>

#include "engine/work/work_function.h"

namespace pipescope::engine {

class SizedOutput : public WorkFunction {
 public:
  SizedOutput(std::unique_ptr<WorkFunction> work, int64_t bytes_per_row);
  std::string name() const override { return work_->name(); }
  Status Apply(Element& element, CancellationToken& cancellation) const override;
  bool has_batched_form() const override { return work_->has_batched_form(); }
  Status ApplyBatched(Element& batch, int64_t rows, CancellationToken& cancellation) const override;

 private:
  void Return(Element& element, int64_t rows) const;
  const std::unique_ptr<WorkFunction> work_;
  const int64_t bytes_per_row_;
};

}  // namespace pipescope::engine
