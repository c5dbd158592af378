#pragma once
// The TFRecord framing's arithmetic, shared by the reader and the writer.

#include <cstddef>
#include <cstdint>

#include "instrumentation/record/crc32c.h"
#include "instrumentation/record/little_endian.h"

namespace pipescope::engine {

inline constexpr size_t kTfRecordHeaderBytes = 12;  // length u64 + masked CRC u32
inline constexpr size_t kTfRecordFooterBytes = 4;   // masked CRC of the data

inline uint32_t MaskedCrc(const char* data, size_t n) {
  return record::MaskCrc(record::Crc32c(data, n));
}

using record::AppendLe32;
using record::AppendLe64;
using record::LoadLe32;
using record::LoadLe64;

}  // namespace pipescope::engine
