#include "engine/io/text_line_reader.h"

#include <cstring>

namespace pipescope::engine {
namespace {

constexpr size_t kBlock = 64 * 1024;

// Appends `n` bytes of `from` to `line` without their '\r's.
void AppendWithoutCarriageReturns(std::string& line, const char* from, size_t n) {
  const char* end = from + n;
  while (from < end) {
    const char* cr = static_cast<const char*>(std::memchr(from, '\r', end - from));
    const char* stop = cr ? cr : end;
    line.append(from, stop);
    from = cr ? cr + 1 : end;
  }
}

}  // namespace

Result<std::unique_ptr<TextLineReader>> TextLineReader::Open(const std::string& path,
                                                             Compression compression) {
  ASSIGN_OR_RETURN(auto source, ByteSource::Open(path, compression));
  return std::unique_ptr<TextLineReader>(new TextLineReader(std::move(source), path));
}

Status TextLineReader::Read(std::string& line, bool& end) {
  line.clear();
  end = false;
  while (true) {
    auto available = source_->Peek(kBlock);
    if (!available.ok()) {
      return available.status().WithContext("text_line \"" + path_ + "\" at offset " +
                                            std::to_string(source_->offset()));
    }
    const size_t n = *available;
    if (n == 0) {
      // At the end of the file a line is one only if it holds something: "a\n" is one line,
      // and so is "a\nb" (TensorFlow's ReadLine says out of range on an empty rest).
      end = line.empty();
      return Status::Ok();
    }
    const char* data = source_->data();
    const char* newline = static_cast<const char*>(std::memchr(data, '\n', n));
    const size_t take = newline ? static_cast<size_t>(newline - data) : n;
    AppendWithoutCarriageReturns(line, data, take);
    source_->Consume(newline ? take + 1 : take);
    if (newline) return Status::Ok();
  }
}

}  // namespace pipescope::engine
