#pragma once
// The records of a file as FixedLengthRecordDataset reads them: `header_bytes` skipped at
// the start, `footer_bytes` left at the end, and records of exactly `record_bytes` between,
// in the file's bytes after decompressing a GZIP or ZLIB file.
//
// A body (what lies between header and footer) that is not a whole number of records is
// an error naming the file and the three sizes. An uncompressed file's size is known when
// it opens, so that error comes before its first record, as tf.data's does; a compressed
// file's size shows only at its end, so its records come until there, as in tf.data.

#include <cstdint>
#include <memory>
#include <string>

#include "engine/io/byte_source.h"

namespace pipescope::engine {

struct FixedLengthRecordFormat {
  int64_t record_bytes = 0;  // > 0
  int64_t header_bytes = 0;
  int64_t footer_bytes = 0;
  Compression compression = Compression::kNone;
};

// The records an uncompressed file of `size` bytes holds, cut by `format`, from its size
// alone. Errors (naming `path`): a record size below 1 or a negative header or footer; a file
// shorter than its header and footer, or whose body is not a whole number of records. The
// rule Open applies, and the simulator's count of a file without opening it.
Result<int64_t> WholeRecordsIn(const std::string& path, const FixedLengthRecordFormat& format,
                               uint64_t size);

class FixedLengthRecordReader {
 public:
  // Errors: a record size below 1 or a negative header or footer; the file cannot be
  // opened; an uncompressed file shorter than its header and footer, or whose body is not
  // a whole number of records.
  static Result<std::unique_ptr<FixedLengthRecordReader>> Open(
      const std::string& path, const FixedLengthRecordFormat& format);

  // The next record into `record`, or `end` once only the footer is left. Errors name the
  // file and the offset (in the decompressed stream) where the body stops short.
  Status Read(std::string& record, bool& end);

  const std::string& path() const { return path_; }

 private:
  FixedLengthRecordReader(std::unique_ptr<ByteSource> source, std::string path,
                          const FixedLengthRecordFormat& format)
      : source_(std::move(source)), path_(std::move(path)), format_(format) {}
  Status SkipHeader();

  std::unique_ptr<ByteSource> source_;
  const std::string path_;
  const FixedLengthRecordFormat format_;
  bool header_skipped_ = false;
};

}  // namespace pipescope::engine
