// Checks record::Crc32c against a bit-at-a-time CRC-32C on buffers of every length up to
// 40 KiB (both of the three-stream path's block boundaries, the 8-byte steps and the tail),
// at every alignment of the first 8 bytes. Built for another architecture by
// scripts/check-crc-arm and run under its emulator, it proves the hardware path there; it
// says which path the CPU took. Exit status 0 when every value matches.
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "instrumentation/record/crc32c.h"

#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace {

uint32_t BitwiseCrc32c(const uint8_t* p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
  }
  return ~crc;
}

const char* PathTaken() {
#if defined(PIPESCOPE_CRC_TABLE_ONLY)
  return "table";
#elif defined(__aarch64__)
  return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? "ARMv8 CRC instructions" : "table";
#elif defined(__x86_64__)
  return __builtin_cpu_supports("sse4.2") ? "SSE4.2 crc32" : "table";
#else
  return "table";
#endif
}

}  // namespace

int main() {
  std::mt19937 rng(7);
  std::vector<uint8_t> data(40 * 1024 + 16);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  int bad = 0, checked = 0;
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t n = 0; n + offset <= data.size(); n += (n < 256 ? 1 : 61)) {
      const uint32_t want = BitwiseCrc32c(data.data() + offset, n);
      const uint32_t got = pipescope::record::Crc32c(data.data() + offset, n);
      ++checked;
      if (got != want && bad++ < 5) {
        std::printf("MISMATCH at offset %zu, %zu bytes: %08x, want %08x\n", offset, n, got, want);
      }
    }
  }
  std::printf("crc32c: %d of %d buffers match (%s)\n", checked - bad, checked, PathTaken());
  return bad == 0 ? 0 : 1;
}
