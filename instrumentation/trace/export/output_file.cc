#include "instrumentation/trace/export/output_file.h"

#include <cerrno>
#include <cstring>
#include <memory>

namespace pipescope::trace {

engine::Result<std::unique_ptr<OutputFile>> OutputFile::Create(const std::string& path) {
  std::unique_ptr<OutputFile> file(new OutputFile(path, path + ".partial"));
  if (path.ends_with(".gz")) {
    file->gz_ = gzopen(file->temp_.c_str(), "wb6");
    if (file->gz_) gzbuffer(file->gz_, 1 << 20);
  } else {
    file->plain_ = std::fopen(file->temp_.c_str(), "wb");
  }
  if (!file->gz_ && !file->plain_) {
    return engine::Status(engine::StatusCode::kInvalidArgument,
                          "cannot create " + path + ": " + std::strerror(errno));
  }
  return file;
}

OutputFile::~OutputFile() {
  if (gz_ || plain_) {
    (void)Close();
    std::remove(temp_.c_str());
  }
}

engine::Status OutputFile::Write(std::string_view bytes) {
  const bool ok = gz_ ? gzwrite(gz_, bytes.data(), static_cast<unsigned>(bytes.size())) ==
                            static_cast<int>(bytes.size())
                      : std::fwrite(bytes.data(), 1, bytes.size(), plain_) == bytes.size();
  if (!ok) {
    return engine::Status(
        engine::StatusCode::kInternal,
        "cannot write " + path_ + " at byte " + std::to_string(written_) + " (disk full?)");
  }
  written_ += bytes.size();
  return engine::Status::Ok();
}

engine::Status OutputFile::Close() {
  bool ok = true;
  if (gz_) ok = gzclose(gz_) == Z_OK;
  if (plain_) ok = std::fclose(plain_) == 0;
  gz_ = nullptr;
  plain_ = nullptr;
  if (!ok) return engine::Status(engine::StatusCode::kInternal, "cannot finish writing " + path_);
  return engine::Status::Ok();
}

engine::Status OutputFile::Commit() {
  RETURN_IF_ERROR(Close());
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    std::remove(temp_.c_str());
    return engine::Status(engine::StatusCode::kInternal,
                          "cannot rename " + temp_ + " to " + path_ + ": " + std::strerror(errno));
  }
  return engine::Status::Ok();
}

engine::Status ExportBuffer::Flush() {
  RETURN_IF_ERROR(file_.Write(out_));
  out_.clear();
  const double share = static_cast<double>(done_) / static_cast<double>(total_);
  if (progress_ && !progress_(share < 1 ? share : 1)) {
    return engine::Status(engine::StatusCode::kCancelled, "export cancelled");
  }
  return engine::Status::Ok();
}

}  // namespace pipescope::trace
