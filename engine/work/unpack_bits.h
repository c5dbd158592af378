#pragma once
// unpack_bits: every byte of the element's value becomes 8 uint8 values of 0/1, most
// significant bit first (numpy.unpackbits order): a [12] int64 chess bitboard becomes
// [12, 64], a 96-byte string record becomes [768]. The batched form unpacks a whole batch
// in one pass ([B, 96]-byte strings → [B, 768]).

#include "engine/work/work_function.h"

namespace pipescope::engine {

class UnpackBits : public WorkFunction {
 public:
  std::string name() const override { return "unpack_bits"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;
  bool has_batched_form() const override { return true; }
  Status ApplyBatched(Element& batch, int64_t rows, CancellationToken& cancellation) const override;
};

// The unpacked tensor; exposed for tests.
Result<Tensor> UnpackBitsOf(const Tensor& packed);

}  // namespace pipescope::engine
