#include "instrumentation/trace/format/byte_source.h"

#include <filesystem>
#include <system_error>

namespace pipescope::pstrace {

using engine::Status;
using engine::StatusCode;

engine::Result<std::unique_ptr<FileBytes>> FileBytes::Open(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return engine::NotFound("cannot open trace '" + path + "': it is a folder");
  }
  std::unique_ptr<std::FILE, Close> file(std::fopen(path.c_str(), "rb"));
  if (!file) return engine::NotFound("cannot open trace '" + path + "'");
  const long size = std::fseek(file.get(), 0, SEEK_END) == 0 ? std::ftell(file.get()) : -1;
  if (size < 0) return Status(StatusCode::kDataLoss, "cannot read trace '" + path + "'");
  return std::unique_ptr<FileBytes>(
      new FileBytes(path, std::move(file), static_cast<size_t>(size)));
}

engine::Result<std::string_view> FileBytes::Read(size_t pos, size_t n) {
  buffer_.resize(n);
  if (std::fseek(file_.get(), static_cast<long>(pos), SEEK_SET) != 0 ||
      std::fread(buffer_.data(), 1, n, file_.get()) != n) {
    return Status(StatusCode::kDataLoss, path_ + ": byte " + std::to_string(pos) +
                                             ": the file ended or could not be read (" +
                                             std::to_string(n) + " bytes wanted)");
  }
  return std::string_view(buffer_);
}

}  // namespace pipescope::pstrace
