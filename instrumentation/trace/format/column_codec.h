#pragma once
// Unsigned LEB128 varints and zigzag, for the event columns of .pstrace chunks. The
// reader side is bounds-checked: it never reads past the end it is given.

#include <cstdint>
#include <string>
#include <string_view>

namespace pipescope::pstrace {

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Appends v at `p`, which must have room for 10 bytes; returns the end.
inline char* PutVarint(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

// Builds one column: room for the worst case up front, trimmed at the end.
class VarintColumnWriter {
 public:
  explicit VarintColumnWriter(size_t count) { bytes_.resize(count * 10); }
  void Put(uint64_t v) {
    used_ = static_cast<size_t>(PutVarint(bytes_.data() + used_, v) - bytes_.data());
  }
  std::string Take() {
    bytes_.resize(used_);
    return std::move(bytes_);
  }

 private:
  std::string bytes_;
  size_t used_ = 0;
};

class VarintReader {
 public:
  explicit VarintReader(std::string_view bytes)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())), end_(p_ + bytes.size()) {}

  // False when the bytes end inside a varint or it is longer than 10 bytes.
  bool Next(uint64_t& v) {
    // Most values of a recording's columns (deltas, short durations) fit one byte.
    if (p_ != end_ && *p_ < 0x80) {
      v = *p_++;
      return true;
    }
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      const uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return true;
    }
    return false;
  }
  bool at_end() const { return p_ == end_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace pipescope::pstrace
