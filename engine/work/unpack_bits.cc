#include "engine/work/unpack_bits.h"

#include <cstring>

namespace pipescope::engine {
namespace {

// Bit-spread table: byte → its 8 bits as bytes, MSB first, stored as one uint64.
struct SpreadTable {
  uint64_t entry[256];
  SpreadTable() {
    for (int b = 0; b < 256; ++b) {
      uint8_t bytes[8];
      for (int k = 0; k < 8; ++k) bytes[k] = static_cast<uint8_t>((b >> (7 - k)) & 1);
      std::memcpy(&entry[b], bytes, 8);
    }
  }
};
const SpreadTable kSpread;

void Spread(const uint8_t* src, size_t n, uint8_t* dst) {
  for (size_t i = 0; i < n; ++i) std::memcpy(dst + 8 * i, &kSpread.entry[src[i]], 8);
}

Result<Tensor> UnpackStrings(const Tensor& packed) {
  const auto& strings = packed.strings();
  const size_t len = strings.empty() ? 0 : strings[0].size();
  for (size_t i = 0; i < strings.size(); ++i) {
    if (strings[i].size() != len) {
      return InvalidArgument("unpack_bits: record " + std::to_string(i) + " has " +
                             std::to_string(strings[i].size()) + " bytes, record 0 has " +
                             std::to_string(len) + " (all must match)");
    }
  }
  ASSIGN_OR_RETURN(Shape shape, packed.shape().Append(static_cast<int64_t>(len) * 8));
  Tensor out(DType::kUint8, shape);
  uint8_t* dst = out.data<uint8_t>();
  for (const auto& s : strings) {
    Spread(reinterpret_cast<const uint8_t*>(s.data()), s.size(), dst);
    dst += 8 * s.size();
  }
  return out;
}

}  // namespace

Result<Tensor> UnpackBitsOf(const Tensor& packed) {
  switch (packed.dtype()) {
    case DType::kUint8: {
      ASSIGN_OR_RETURN(Shape shape, packed.shape().Append(8));
      Tensor out(DType::kUint8, shape);
      Spread(packed.data<uint8_t>(), packed.byte_size(), out.data<uint8_t>());
      return out;
    }
    case DType::kInt64: {
      // Each word unpacks in big-endian byte order, so bit 63 comes first, like a
      // bitboard printed from a8 to h1.
      ASSIGN_OR_RETURN(Shape shape, packed.shape().Append(64));
      Tensor out(DType::kUint8, shape);
      const int64_t* words = packed.data<int64_t>();
      uint8_t* dst = out.data<uint8_t>();
      for (int64_t w = 0; w < packed.num_elements(); ++w) {
        uint8_t be[8];
        const auto v = static_cast<uint64_t>(words[w]);
        for (int k = 0; k < 8; ++k) be[k] = static_cast<uint8_t>(v >> (56 - 8 * k));
        Spread(be, 8, dst + 64 * w);
      }
      return out;
    }
    case DType::kString:
      return UnpackStrings(packed);
    default:
      return InvalidArgument("unpack_bits needs uint8, int64 or string data, got " +
                             std::string(DTypeName(packed.dtype())));
  }
}

Status UnpackBits::Apply(Element& element, CancellationToken&) const {
  ASSIGN_OR_RETURN(element.value, UnpackBitsOf(element.value));
  return Status::Ok();
}

Status UnpackBits::ApplyBatched(Element& batch, int64_t, CancellationToken& c) const {
  // The per-row function is shape-polymorphic, so the batch unpacks in one pass.
  return Apply(batch, c);
}

}  // namespace pipescope::engine
