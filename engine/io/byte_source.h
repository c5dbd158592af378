#pragma once
// A forward-only view of a file's bytes, decompressed when the file is GZIP or ZLIB: what
// the TFRecord and text-line readers parse from. The file is read in blocks of 256 KiB with
// read(2) into a buffer that stays in the core's cache, and the readers check and copy
// records where that buffer holds them: each byte crosses from the page cache once, and
// what the checksum reads next is already in the cache. (A mapping of the file would skip
// that one copy, but it pays a page fault per 4 KiB instead; under a paravirtualised guest
// the faults cost more than the copy: 1.4 GB/s mapped against 4.5 GB/s read on one VM.)
// Peek never allocates more than the data that exists, so a corrupted length field cannot
// make it allocate without bound.

#include <cstdint>
#include <memory>
#include <string>

#include "engine/core/status.h"

namespace pipescope::engine {

enum class Compression { kNone, kGzip, kZlib };

// "" / "NONE", "GZIP", "ZLIB" (TensorFlow's spellings); anything else is an error.
Result<Compression> ParseCompression(const std::string& name);
std::string CompressionName(Compression c);

class ByteSource {
 public:
  static Result<std::unique_ptr<ByteSource>> Open(const std::string& path, Compression compression);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  // Makes up to n bytes available at data(); returns how many are (fewer only at the end
  // of the data). Errors: a read error, or compressed data that does not decompress.
  // Moves data(): a pointer into it lasts until the next Peek.
  Result<size_t> Peek(size_t n);
  const char* data() const { return buffer_.get() + begin_; }
  // Drops n peeked bytes.
  void Consume(size_t n);
  // Offset, in the (decompressed) stream, of data()[0].
  uint64_t offset() const { return offset_; }
  // True once a regular file ended before the size it had when opened: another program
  // cut it short while it was being read.
  bool shrank() const { return shrank_; }

 private:
  ByteSource(int fd, std::string path, Compression compression, int64_t size_at_open);
  Status Fill(size_t want);  // appends at least `want` bytes to the buffer, unless at the end
  // Room for `n` more bytes after end_: moves the unconsumed bytes to the front, or grows.
  void MakeRoom(size_t n);
  Result<size_t> ReadRaw(char* out, size_t n);

  const int fd_;
  const std::string path_;
  const Compression compression_;
  const int64_t size_at_open_;  // -1: not a regular file (a pipe)
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;
  // Not a std::string: growing one writes zeros over what read(2) then overwrites.
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  size_t begin_ = 0;  // data() is buffer_[begin_, end_)
  size_t end_ = 0;
  uint64_t offset_ = 0;
  uint64_t file_bytes_ = 0;
  bool at_end_ = false;
  bool shrank_ = false;
};

}  // namespace pipescope::engine
