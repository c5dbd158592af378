#pragma once
// CRC-32C (Castagnoli), as TFRecord files and .pstrace records use it. Uses the CPU's
// CRC-32C instructions when it has them (SSE4.2 on x86-64, the CRC extension on ARMv8), a
// table otherwise; all give the same result.
// Lives here, at the bottom of the dependency graph, so that the engine's TFRecord reader
// and the trace file share it.

#include <cstddef>
#include <cstdint>

namespace pipescope::record {

uint32_t Crc32c(const void* data, size_t size, uint32_t crc = 0);

// TFRecord's masking of a stored CRC (so that a CRC of CRCs is not trivially zero).
inline uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

}  // namespace pipescope::record
