// Checks every way this CPU has of computing record::Crc32c against a bit-at-a-time CRC-32C
// on buffers of every length up to 1100 bytes and of many up to 40 KiB (the three-stream
// path's block boundaries, the folding paths' thresholds, rounds and whole-lane tails, the
// 8-byte steps and the last bytes), at every alignment of the first 8 bytes. Built for
// another architecture by scripts/check-crc-arm and run under its emulator, it proves the
// hardware path there; it names each path it checked. Exit status 0 when every value
// matches.
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "instrumentation/record/crc32c.h"

namespace {

uint32_t BitwiseCrc32c(const uint8_t* p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
  }
  return ~crc;
}

}  // namespace

int main() {
  using pipescope::record::Crc32cPath;
  std::mt19937 rng(7);
  std::vector<uint8_t> data(40 * 1024 + 16);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  const Crc32cPath fastest = pipescope::record::FastestCrc32cPath();
  int bad = 0;
  for (int k = 0; k <= static_cast<int>(fastest); ++k) {
    const auto path = static_cast<Crc32cPath>(k);
    int path_bad = 0, checked = 0;
    for (size_t offset = 0; offset < 8; ++offset) {
      for (size_t n = 0; n + offset <= data.size(); n += (n < 1100 ? 1 : 61)) {
        const uint32_t want = BitwiseCrc32c(data.data() + offset, n);
        const uint32_t got = pipescope::record::Crc32cWith(path, data.data() + offset, n);
        ++checked;
        if (got != want && path_bad++ < 5) {
          std::printf("MISMATCH (%s) at offset %zu, %zu bytes: %08x, want %08x\n",
                      pipescope::record::Crc32cPathName(path), offset, n, got, want);
        }
      }
    }
    std::printf("crc32c: %d of %d buffers match (%s%s)\n", checked - path_bad, checked,
                pipescope::record::Crc32cPathName(path),
                path == fastest ? ", the CPU's fastest" : "");
    bad += path_bad;
  }
  return bad == 0 ? 0 : 1;
}
