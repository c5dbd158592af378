#include "instrumentation/record/crc32c.h"

#include <array>
#include <cstring>

#if defined(__aarch64__)
#include <arm_acle.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace pipescope::record {
namespace {

constexpr uint32_t kPolynomial = 0x82f63b78u;  // reflected Castagnoli

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr auto kTable = MakeTable();

uint32_t Portable(const uint8_t* p, size_t n, uint32_t crc) {
  for (size_t i = 0; i < n; ++i) crc = kTable[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

// The CPU's CRC-32C instructions: SSE4.2's crc32 on x86-64, the CRC extension's crc32c*
// on ARMv8. One step folds 8 bytes (or 1) into the register.
// PIPESCOPE_CRC_TABLE_ONLY builds the table alone (scripts/check-crc-arm checks it so).
#if defined(PIPESCOPE_CRC_TABLE_ONLY)
#elif defined(__x86_64__)
#define PIPESCOPE_HAVE_CRC_INSTRUCTIONS 1
#define PIPESCOPE_CRC_TARGET __attribute__((target("sse4.2")))
PIPESCOPE_CRC_TARGET inline uint64_t Step8(uint64_t crc, uint64_t v) {
  return __builtin_ia32_crc32di(crc, v);
}
PIPESCOPE_CRC_TARGET inline uint32_t Step1(uint32_t crc, uint8_t v) {
  return __builtin_ia32_crc32qi(crc, v);
}
bool HaveCrcInstructions() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#elif defined(__aarch64__)
#define PIPESCOPE_HAVE_CRC_INSTRUCTIONS 1
#define PIPESCOPE_CRC_TARGET __attribute__((target("+crc")))
PIPESCOPE_CRC_TARGET inline uint64_t Step8(uint64_t crc, uint64_t v) {
  return __crc32cd(static_cast<uint32_t>(crc), v);
}
PIPESCOPE_CRC_TARGET inline uint32_t Step1(uint32_t crc, uint8_t v) { return __crc32cb(crc, v); }
bool HaveCrcInstructions() {
  static const bool have = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
  return have;
}
#endif

#if defined(PIPESCOPE_HAVE_CRC_INSTRUCTIONS)
PIPESCOPE_CRC_TARGET uint32_t Hardware(const uint8_t* p, size_t n, uint32_t crc) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = Step8(c, v);
    p += 8;
    n -= 8;
  }
  auto c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = Step1(c32, *p++);
  return c32;
}

// The instruction has a latency of three cycles and a throughput of one on both kinds of
// CPU: three independent streams keep it busy. Buffers are cut into three blocks of
// kBlock bytes, each block's register is computed from zero alongside the others, and the
// registers are combined by "appending kBlock zero bytes" — a linear map, applied with
// tables.
constexpr size_t kBlock = 4096;

struct ShiftTables {
  uint32_t t[4][256];
};

ShiftTables MakeShiftTables() {
  // The map's value on each basis vector, by running the register over kBlock zeros.
  uint32_t column[32];
  const std::array<uint8_t, kBlock> zeros{};
  for (int bit = 0; bit < 32; ++bit) column[bit] = Portable(zeros.data(), zeros.size(), 1u << bit);
  ShiftTables s{};
  for (int k = 0; k < 4; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t v = 0;
      for (int bit = 0; bit < 8; ++bit) {
        if (b & (1u << bit)) v ^= column[8 * k + bit];
      }
      s.t[k][b] = v;
    }
  }
  return s;
}

uint32_t ShiftByBlock(uint32_t crc) {
  static const ShiftTables s = MakeShiftTables();
  return s.t[0][crc & 0xff] ^ s.t[1][(crc >> 8) & 0xff] ^ s.t[2][(crc >> 16) & 0xff] ^
         s.t[3][crc >> 24];
}

PIPESCOPE_CRC_TARGET uint32_t HardwareThreeWay(const uint8_t* p, size_t n, uint32_t crc) {
  while (n >= 3 * kBlock) {
    uint64_t a = crc, b = 0, c = 0;
    const uint8_t* pa = p;
    const uint8_t* pb = p + kBlock;
    const uint8_t* pc = p + 2 * kBlock;
    for (size_t i = 0; i < kBlock; i += 8) {
      uint64_t va, vb, vc;
      std::memcpy(&va, pa + i, 8);
      std::memcpy(&vb, pb + i, 8);
      std::memcpy(&vc, pc + i, 8);
      a = Step8(a, va);
      b = Step8(b, vb);
      c = Step8(c, vc);
    }
    crc = ShiftByBlock(ShiftByBlock(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^
          static_cast<uint32_t>(c);
    p += 3 * kBlock;
    n -= 3 * kBlock;
  }
  return Hardware(p, n, crc);
}
#endif

}  // namespace

uint32_t Crc32c(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
#if defined(PIPESCOPE_HAVE_CRC_INSTRUCTIONS)
  if (HaveCrcInstructions()) return ~HardwareThreeWay(p, size, crc);
#endif
  return ~Portable(p, size, crc);
}

}  // namespace pipescope::record
