#pragma once
// CRC-32C (Castagnoli), as TFRecord files and .pstrace records use it. Uses carry-less
// multiplication where the CPU has it (x86-64's PCLMULQDQ, and VPCLMULQDQ on AVX-512), its
// CRC-32C instructions otherwise (SSE4.2 on x86-64, the CRC extension on ARMv8), a table
// where it has neither; all give the same result.
// Lives here, at the bottom of the dependency graph, so that the engine's TFRecord reader
// and the trace file share it.

#include <cstddef>
#include <cstdint>

namespace pipescope::record {

uint32_t Crc32c(const void* data, size_t size, uint32_t crc = 0);

// The ways of computing it, slowest first. Each gives the same result; Crc32c takes the
// fastest this CPU has, and each falls back to the one before it on buffers too short to
// gain (folding needs a few hundred bytes).
enum class Crc32cPath {
  kTable,             // 8 bits a step from a table: every CPU
  kInstruction,       // SSE4.2's crc32 on x86-64, the CRC extension on ARMv8: 3 streams
  kFoldSixteenLanes,  // x86-64 VPCLMULQDQ on AVX-512: carry-less multiplication, 4 x 64 bytes
};
Crc32cPath FastestCrc32cPath();
const char* Crc32cPathName(Crc32cPath path);
// Crc32c by `path`, or by the fastest this CPU has where it lacks `path`: for tests and
// benchmarks that compare the paths.
uint32_t Crc32cWith(Crc32cPath path, const void* data, size_t size, uint32_t crc = 0);

// TFRecord's masking of a stored CRC (so that a CRC of CRCs is not trivially zero).
inline uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

}  // namespace pipescope::record
