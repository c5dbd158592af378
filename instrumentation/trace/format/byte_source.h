#pragma once
// Where the .pstrace reader gets its bytes: a buffer already in memory, or a file read a
// record at a time. A whole file held in memory while its model is built was the largest
// part of opening a large trace's peak memory beside the model itself (1.5 bytes an event).

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "engine/core/status.h"

namespace pipescope::pstrace {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual size_t size() const = 0;
  // The n bytes at pos, where pos + n <= size(); valid until the next Read.
  virtual engine::Result<std::string_view> Read(size_t pos, size_t n) = 0;
};

class MemoryBytes : public ByteSource {
 public:
  explicit MemoryBytes(std::string_view bytes) : bytes_(bytes) {}
  size_t size() const override { return bytes_.size(); }
  engine::Result<std::string_view> Read(size_t pos, size_t n) override {
    return bytes_.substr(pos, n);
  }

 private:
  std::string_view bytes_;
};

class FileBytes : public ByteSource {
 public:
  // The file's size is taken once: a file that grows while it is read is read as it was.
  static engine::Result<std::unique_ptr<FileBytes>> Open(const std::string& path);
  size_t size() const override { return size_; }
  engine::Result<std::string_view> Read(size_t pos, size_t n) override;

 private:
  struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  FileBytes(std::string path, std::unique_ptr<std::FILE, Close> file, size_t size)
      : path_(std::move(path)), file_(std::move(file)), size_(size) {}

  std::string path_;
  std::unique_ptr<std::FILE, Close> file_;
  size_t size_;
  std::string buffer_;
};

}  // namespace pipescope::pstrace
