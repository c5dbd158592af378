#pragma once
// The lines of a text file, as TextLineDataset reads them (TensorFlow's
// BufferedInputStream::ReadLine): a line ends at '\n', every '\r' is dropped, a last line
// without '\n' is still a line when anything is left of it, and a '\n' at the very end adds
// no empty line after it (an empty line between two '\n' is one).
// GZIP and ZLIB files are read decompressed.

#include <memory>
#include <string>

#include "engine/io/byte_source.h"

namespace pipescope::engine {

class TextLineReader {
 public:
  // Errors: the file cannot be opened (its path named).
  static Result<std::unique_ptr<TextLineReader>> Open(const std::string& path,
                                                      Compression compression);

  // The next line into `line`, or `end` after the last. Errors name the file and the
  // offset where reading or decompressing failed.
  Status Read(std::string& line, bool& end);

  const std::string& path() const { return path_; }

 private:
  TextLineReader(std::unique_ptr<ByteSource> source, std::string path)
      : source_(std::move(source)), path_(std::move(path)) {}
  std::unique_ptr<ByteSource> source_;
  const std::string path_;
};

}  // namespace pipescope::engine
