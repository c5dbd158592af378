#include "engine/spec/work_bytes.h"

#include <algorithm>

namespace pipescope::engine {

std::optional<int64_t> BytesAfterWork(const spec::WorkFunction& fn, std::optional<int64_t> in) {
  if (fn.output_bytes() > 0) return fn.output_bytes();
  switch (fn.kind_case()) {
    case spec::WorkFunction::kIdentity:
    case spec::WorkFunction::kRandomFlip:
      return in;
    case spec::WorkFunction::kUnpackBits:  // a uint8 0/1 per bit
      return in ? std::optional(*in * 8) : std::nullopt;
    case spec::WorkFunction::kNormalize:  // each byte a float32
      return in ? std::optional(*in * 4) : std::nullopt;
    case spec::WorkFunction::kResize:  // float32 [height, width, 3]
      return std::max<int64_t>(1, fn.resize().height() * fn.resize().width() * 3 * 4);
    case spec::WorkFunction::kRandomCrop:  // uint8 [height, width, 3]
      return std::max<int64_t>(1, fn.random_crop().height() * fn.random_crop().width() * 3);
    case spec::WorkFunction::kDecodeCsv: {  // a float32 per field kept
      const auto& csv = fn.decode_csv();
      const int64_t fields = csv.select_cols_size() > 0 ? csv.select_cols_size() : csv.columns();
      if (fields > 0) return 4 * fields;
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace pipescope::engine
