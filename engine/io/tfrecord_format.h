#pragma once
// The TFRecord framing's arithmetic, shared by the reader and the writer.

#include <cstddef>
#include <cstdint>
#include <string>

#include "instrumentation/record/crc32c.h"

namespace pipescope::engine {

inline constexpr size_t kTfRecordHeaderBytes = 12;  // length u64 + masked CRC u32
inline constexpr size_t kTfRecordFooterBytes = 4;   // masked CRC of the data

inline uint32_t MaskedCrc(const char* data, size_t n) {
  return record::MaskCrc(record::Crc32c(data, n));
}

inline uint64_t LoadLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
inline uint32_t LoadLe32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
inline void AppendLe64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}
inline void AppendLe32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

}  // namespace pipescope::engine
