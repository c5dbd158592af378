#include "engine/work/sized_output.h"

#include <cstring>
#include <utility>

namespace pipescope::engine {

SizedOutput::SizedOutput(std::unique_ptr<WorkFunction> work, int64_t bytes_per_row)
    : work_(std::move(work)), bytes_per_row_(bytes_per_row) {}

void SizedOutput::Return(Element& element, int64_t rows) const {
  const Shape shape = rows > 0 ? Shape{rows, bytes_per_row_} : Shape{bytes_per_row_};
  Tensor out(DType::kUint8, shape);
  std::memset(out.raw(), static_cast<int>(element.id & 0xFF), out.byte_size());
  element.value = std::move(out);
  element.features.clear();
}

Status SizedOutput::Apply(Element& element, CancellationToken& cancellation) const {
  RETURN_IF_ERROR(work_->Apply(element, cancellation));
  Return(element, 0);
  return Status::Ok();
}

Status SizedOutput::ApplyBatched(Element& batch, int64_t rows,
                                 CancellationToken& cancellation) const {
  RETURN_IF_ERROR(work_->ApplyBatched(batch, rows, cancellation));
  Return(batch, rows);
  return Status::Ok();
}

}  // namespace pipescope::engine
