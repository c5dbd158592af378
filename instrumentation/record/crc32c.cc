#include "instrumentation/record/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

// Carry-less multiplication folds 16 bytes at a time where the crc32 instruction takes 8;
// with VPCLMULQDQ on AVX-512 (Ice Lake, Zen 4 and later) four 512-bit registers fold 256
// bytes a round, twice the three crc32 streams' rate on 64 KiB records (Zen 4: 45 against
// 22 GB/s). The 128-bit PCLMULQDQ alone, with four lanes, came out at half the streams' rate
// there, so CPUs without AVX-512 keep the streams. It is the method of Intel's "Fast CRC
// Computation for Generic Polynomials Using PCLMULQDQ" (2009), with its constants computed
// here rather than copied.
//
// Why it is exact. Write a 128-bit lane v (16 bytes in memory order, as little-endian
// qwords lo then hi) as the polynomial V = R(lo)·x^64 + R(hi), where R(q) gives bit i of q
// the degree 63 - i: the reflected order in which a CRC-32C reads bits. For qwords a, b
// the carry-less product c = a ⊗ b then has R128(c) = x·R(a)·R(b). A lane that D bits of
// data follow contributes V·x^D to the message, and so does
//   (lo ⊗ K1) ⊕ (hi ⊗ K2), with K1 = x^(63+D) mod P and K2 = x^(D-1) mod P,
// a value of at most 96 bits: it is xored into the lane D bits later, until one lane G is
// left, the message's last 16 bytes as far as the CRC can tell. The crc32 instruction
// then reduces G from a zero register. The initial register is xored into the first four
// bytes, which for a reflected CRC is the same as starting from it.
#if defined(__x86_64__) && !defined(PIPESCOPE_CRC_TABLE_ONLY)
#define PIPESCOPE_HAVE_CRC_FOLDING 1

// x^n mod P in the normal bit order (bit d is x^d), for P = x^32 + 0x1EDC6F41.
uint32_t PowerModP(unsigned n) {
  uint64_t r = 1;
  for (unsigned i = 0; i < n; ++i) {
    r <<= 1;
    if (r & (uint64_t{1} << 32)) r ^= (uint64_t{1} << 32) | 0x1EDC6F41u;
  }
  return static_cast<uint32_t>(r);
}

// A polynomial of degree below 32 as the qword operand R(q) equals.
uint64_t AsOperand(uint32_t polynomial) {
  uint64_t q = 0;
  for (int d = 0; d < 32; ++d) {
    if (polynomial & (1u << d)) q |= uint64_t{1} << (63 - d);
  }
  return q;
}

// The pair of multipliers that moves a lane `bits` further on: K1 for lo, K2 for hi.
struct FoldConstants {
  uint64_t k1, k2;
};
FoldConstants FoldBy(unsigned bits) {
  return {AsOperand(PowerModP(63 + bits)), AsOperand(PowerModP(bits - 1))};
}

struct AllFoldConstants {
  FoldConstants by128 = FoldBy(128), by256 = FoldBy(256), by384 = FoldBy(384), by512 = FoldBy(512),
                by2048 = FoldBy(2048);
};
const AllFoldConstants& Constants() {
  static const AllFoldConstants c;
  return c;
}

#define PIPESCOPE_CLMUL_TARGET __attribute__((target("sse4.2,pclmul")))
#define PIPESCOPE_VCLMUL_TARGET \
  __attribute__((target("sse4.2,pclmul,avx512f,avx512vl,avx512bw,vpclmulqdq")))

PIPESCOPE_CLMUL_TARGET inline __m128i Pair(FoldConstants k) {
  return _mm_set_epi64x(static_cast<long long>(k.k2), static_cast<long long>(k.k1));
}
PIPESCOPE_CLMUL_TARGET inline __m128i Fold(__m128i lane, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(lane, k, 0x00), _mm_clmulepi64_si128(lane, k, 0x11));
}
PIPESCOPE_CLMUL_TARGET inline __m128i Load(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// Ends a fold: whole 16-byte lanes left in [p, p + n) are folded in one at a time, the lane
// is reduced by the crc32 instruction, and the bytes after the last whole lane go through
// it too.
PIPESCOPE_CLMUL_TARGET uint32_t FinishFold(__m128i g, const uint8_t* p, size_t n) {
  const __m128i k128 = Pair(Constants().by128);
  while (n >= 16) {
    g = _mm_xor_si128(Fold(g, k128), Load(p));
    p += 16;
    n -= 16;
  }
  uint64_t c = Step8(0, static_cast<uint64_t>(_mm_cvtsi128_si64(g)));
  c = Step8(c, static_cast<uint64_t>(_mm_extract_epi64(g, 1)));
  return Hardware(p, n, static_cast<uint32_t>(c));
}

PIPESCOPE_VCLMUL_TARGET inline __m512i Fold(__m512i lanes, __m512i k) {
  return _mm512_xor_si512(_mm512_clmulepi64_epi128(lanes, k, 0x00),
                          _mm512_clmulepi64_epi128(lanes, k, 0x11));
}
// (Written with set and a store rather than broadcast and extract intrinsics, whose GCC 12
// headers warn of an uninitialised variable of their own.)
PIPESCOPE_VCLMUL_TARGET inline __m512i Broadcast(FoldConstants k) {
  const auto k1 = static_cast<long long>(k.k1), k2 = static_cast<long long>(k.k2);
  return _mm512_set_epi64(k2, k1, k2, k1, k2, k1, k2, k1);
}
PIPESCOPE_VCLMUL_TARGET inline __m512i Load512(const uint8_t* p) { return _mm512_loadu_si512(p); }

// Four registers of four lanes, 256 bytes a round. n >= 256.
PIPESCOPE_VCLMUL_TARGET uint32_t FoldSixteenLanes(const uint8_t* p, size_t n, uint32_t crc) {
  __m512i a = _mm512_xor_si512(Load512(p),
                               _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(crc))));
  __m512i b = Load512(p + 64), c = Load512(p + 128), d = Load512(p + 192);
  p += 256;
  n -= 256;
  const __m512i k2048 = Broadcast(Constants().by2048);
  while (n >= 256) {
    a = _mm512_xor_si512(Fold(a, k2048), Load512(p));
    b = _mm512_xor_si512(Fold(b, k2048), Load512(p + 64));
    c = _mm512_xor_si512(Fold(c, k2048), Load512(p + 128));
    d = _mm512_xor_si512(Fold(d, k2048), Load512(p + 192));
    p += 256;
    n -= 256;
  }
  // Lane l of register r is the (4r + l)th of the last 16 lanes: each register folds into
  // the next by four lanes, then the last register's lanes into its last.
  const __m512i k512 = Broadcast(Constants().by512);
  b = _mm512_xor_si512(Fold(a, k512), b);
  c = _mm512_xor_si512(Fold(b, k512), c);
  d = _mm512_xor_si512(Fold(c, k512), d);
  alignas(64) uint8_t last[64];
  _mm512_store_si512(last, d);
  const __m128i g =
      _mm_xor_si128(_mm_xor_si128(Fold(Load(last), Pair(Constants().by384)),
                                  Fold(Load(last + 16), Pair(Constants().by256))),
                    _mm_xor_si128(Fold(Load(last + 32), Pair(Constants().by128)), Load(last + 48)));
  return FinishFold(g, p, n);
}

bool HaveClmul() {
  static const bool have = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul");
  return have;
}
bool HaveVclmul() {
  static const bool have =
      HaveClmul() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("vpclmulqdq");
  return have;
}
#endif

// Below this size the crc32 instruction's streams finish first: folding has a fixed cost
// (loading the constants, reducing sixteen lanes) of a few dozen cycles.
constexpr size_t kFoldSixteenLanesFrom = 1024;

uint32_t Compute(Crc32cPath path, const uint8_t* p, size_t n, uint32_t crc) {
  switch (path) {
#if defined(PIPESCOPE_HAVE_CRC_FOLDING)
    case Crc32cPath::kFoldSixteenLanes:
      if (n >= kFoldSixteenLanesFrom) return FoldSixteenLanes(p, n, crc);
      [[fallthrough]];
#endif
#if defined(PIPESCOPE_HAVE_CRC_INSTRUCTIONS)
    case Crc32cPath::kInstruction:
      return HardwareThreeWay(p, n, crc);
#endif
    default:
      return Portable(p, n, crc);
  }
}

Crc32cPath BestPath() {
#if defined(PIPESCOPE_HAVE_CRC_FOLDING)
  if (HaveVclmul()) return Crc32cPath::kFoldSixteenLanes;
#endif
#if defined(PIPESCOPE_HAVE_CRC_INSTRUCTIONS)
  if (HaveCrcInstructions()) return Crc32cPath::kInstruction;
#endif
  return Crc32cPath::kTable;
}

}  // namespace

Crc32cPath FastestCrc32cPath() {
  static const Crc32cPath path = BestPath();
  return path;
}

const char* Crc32cPathName(Crc32cPath path) {
  switch (path) {
    case Crc32cPath::kFoldSixteenLanes:
      return "VPCLMULQDQ folding, 16 lanes";
    case Crc32cPath::kInstruction:
#if defined(__aarch64__)
      return "ARMv8 CRC instructions";
#else
      return "SSE4.2 crc32";
#endif
    case Crc32cPath::kTable:
      break;
  }
  return "table";
}

uint32_t Crc32cWith(Crc32cPath path, const void* data, size_t size, uint32_t crc) {
  if (static_cast<int>(path) > static_cast<int>(FastestCrc32cPath())) path = FastestCrc32cPath();
  return ~Compute(path, static_cast<const uint8_t*>(data), size, ~crc);
}

uint32_t Crc32c(const void* data, size_t size, uint32_t crc) {
  return ~Compute(FastestCrc32cPath(), static_cast<const uint8_t*>(data), size, ~crc);
}

}  // namespace pipescope::record
