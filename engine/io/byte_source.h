#pragma once
// A forward-only view of a file's bytes, decompressed when the file is GZIP or ZLIB: what
// the TFRecord reader parses from. An uncompressed regular file is mapped, and data()
// points into the page cache: nothing is copied until a record must outlive the view.
// Other files are read into a buffer. Peek never allocates more than the data that
// exists, so a corrupted length field cannot make it allocate without bound.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "engine/core/status.h"
#include "engine/io/mapped_file.h"

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
  Result<size_t> Peek(size_t n);
  const char* data() const { return mapped_ ? mapped_->data() + offset_ : buffer_.data() + begin_; }
  // Drops n peeked bytes.
  void Consume(size_t n);
  // Runs `fn`, which reads bytes at data(), and returns false when they were cut from a
  // mapped file meanwhile (see MappedFile::Touch, whose rules `fn` follows).
  template <class Fn>
  bool Touch(Fn&& fn) const {
    if (mapped_) return MappedFile::Touch(fn);
    fn();
    return true;
  }
  bool mapped() const { return mapped_ != nullptr; }
  // Offset, in the (decompressed) stream, of data()[0].
  uint64_t offset() const { return offset_; }

 private:
  ByteSource(std::FILE* file, std::string path, Compression compression);
  Status Fill(size_t want);  // appends at least `want` bytes to the buffer, unless at the end
  Result<size_t> ReadRaw(char* out, size_t n);

  std::FILE* file_;
  std::unique_ptr<MappedFile> mapped_;  // set instead of file_ for an uncompressed regular file
  const std::string path_;
  const Compression compression_;
  struct Inflater;
  std::unique_ptr<Inflater> inflater_;
  std::string buffer_;
  size_t begin_ = 0;  // data() is buffer_[begin_..]
  uint64_t offset_ = 0;
  uint64_t file_bytes_ = 0;
  bool at_end_ = false;
};

}  // namespace pipescope::engine
