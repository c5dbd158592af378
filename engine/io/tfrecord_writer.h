#pragma once
// Writes TFRecord files that TensorFlow reads: the framing of tfrecord_reader.h, in an
// uncompressed, GZIP or ZLIB file.

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "engine/io/byte_source.h"

namespace pipescope::engine {

class TfRecordWriter {
 public:
  static Result<std::unique_ptr<TfRecordWriter>> Create(const std::string& path,
                                                        Compression compression);
  ~TfRecordWriter();
  TfRecordWriter(const TfRecordWriter&) = delete;
  TfRecordWriter& operator=(const TfRecordWriter&) = delete;

  Status Write(std::string_view record);
  // Finishes the compressed stream and closes the file; also done by the destructor,
  // which cannot report errors.
  Status Close();
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  TfRecordWriter(std::FILE* file, std::string path);
  Status Emit(const char* data, size_t n, bool finish);

  std::FILE* file_;
  const std::string path_;
  struct Deflater;
  std::unique_ptr<Deflater> deflater_;
  uint64_t bytes_written_ = 0;
};

}  // namespace pipescope::engine
