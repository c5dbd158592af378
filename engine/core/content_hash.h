#pragma once
// Deterministic hashes of an element's bytes, for decisions that must not depend on the
// order elements arrive in: keep_fraction's filter, random_crop's and random_flip's
// randomness.

#include <cstddef>
#include <cstdint>

#include "engine/core/tensor.h"

namespace pipescope::engine {

// 64-bit FNV-1a over up to `max_bytes` of the tensor's values (string contents for
// strings), started from `seed`, with a splitmix64 finish so the low bits are well mixed.
inline uint64_t HashTensor(const Tensor& t, uint64_t seed, size_t max_bytes = SIZE_MAX) {
  uint64_t h = 1469598103934665603ull ^ seed;
  auto mix = [&h, &max_bytes](const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    n = n < max_bytes ? n : max_bytes;
    max_bytes -= n;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  if (t.dtype() == DType::kString) {
    for (const auto& s : t.strings()) mix(s.data(), s.size());
  } else {
    mix(t.raw(), t.byte_size());
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

}  // namespace pipescope::engine
