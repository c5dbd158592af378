#pragma once
// A file the exporters write in large pieces: plain, or gzip-compressed when its name ends
// in ".gz". Written under a temporary name and renamed by Commit(), so a failed or
// cancelled export leaves no half file behind (and no earlier file destroyed).

#include <zlib.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/core/status.h"

namespace pipescope::trace {

class OutputFile {
 public:
  static engine::Result<std::unique_ptr<OutputFile>> Create(const std::string& path);
  ~OutputFile();  // without Commit(): the temporary file is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  engine::Status Write(std::string_view bytes);
  // Closes the file and gives it its name.
  engine::Status Commit();
  uint64_t bytes_written() const { return written_; }

 private:
  OutputFile(std::string path, std::string temp) : path_(std::move(path)), temp_(std::move(temp)) {}
  engine::Status Close();

  const std::string path_;
  const std::string temp_;
  std::FILE* plain_ = nullptr;
  gzFile gz_ = nullptr;
  uint64_t written_ = 0;
};

// What an exporter writes, gathered in memory and written in pieces of about 1 MiB; after
// each piece `progress` hears the share of items written and may cancel (kCancelled).
class ExportBuffer {
 public:
  ExportBuffer(OutputFile& file, std::function<bool(double)> progress, size_t total_items)
      : file_(file), progress_(std::move(progress)), total_(total_items > 0 ? total_items : 1) {}

  std::string& text() { return out_; }
  // One item (an event, a packet) is complete: writes a piece once the buffer is full.
  engine::Status ItemDone() {
    ++done_;
    return out_.size() < kPieceBytes ? engine::Status::Ok() : Flush();
  }
  engine::Status Flush();

 private:
  static constexpr size_t kPieceBytes = 1 << 20;
  OutputFile& file_;
  const std::function<bool(double)> progress_;
  const size_t total_;
  size_t done_ = 0;
  std::string out_;
};

}  // namespace pipescope::trace
