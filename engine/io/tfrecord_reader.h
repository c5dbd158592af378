#pragma once
// Reads TFRecord files as TensorFlow writes them: each record is
//   length u64 LE | masked CRC-32C of the length u32 LE | data | masked CRC-32C of data u32 LE
// in an uncompressed, GZIP or ZLIB file.
//
// Corruption policy: by default a bad checksum or a truncated record is an error naming
// the file, the record's index and its byte offset (in the decompressed stream). With
// skip_corrupt, the reader instead scans forward to the next position where a whole valid
// record starts, counts what it skipped, and goes on. Nothing is allocated from a length
// field before the bytes it claims exist, and lengths above 1 GiB are refused.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/io/byte_source.h"

namespace pipescope::engine {

// The compression of a TFRecord file from its first bytes (12 are enough): an
// uncompressed record header whose checksum holds, else the gzip magic, else a zlib
// header, else none. Checking the header first settles the case of a little-endian
// length that happens to look like a zlib header.
Compression SniffCompression(std::string_view first_bytes);

class TfRecordReader {
 public:
  static constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 30;

  struct Options {
    Compression compression = Compression::kNone;
    bool skip_corrupt = false;
  };
  static Result<std::unique_ptr<TfRecordReader>> Open(const std::string& path, Options options);

  // The next record's bytes, or end = true after the last. Each byte of an uncompressed
  // file crosses from the page cache once, into the source's buffer, where the checksum and
  // the copy into `record` read it from the core's cache.
  Status Read(std::string& record, bool& end);
  // The next record read and both its checksums verified, its bytes left where they are:
  // counting and checking a file without copying it. `length` is the record's size.
  Status Check(uint64_t& length, bool& end);

  const std::string& path() const { return path_; }
  int64_t corrupt_regions_skipped() const { return skipped_regions_; }
  uint64_t bytes_skipped() const { return skipped_bytes_; }

 private:
  TfRecordReader(std::string path, Options options, std::unique_ptr<ByteSource> source)
      : path_(std::move(path)), options_(options), source_(std::move(source)) {}
  // Reads the next record into `record` (null: only checks it), stepping over corrupt
  // stretches when skip_corrupt is set.
  Status Next(std::string* record, uint64_t& length, bool& end);
  // Tries to read a whole valid record at the current position. Returns kOk with
  // `valid` false (and `problem` set) when the bytes there are not one.
  Status TryRecordHere(std::string* record, uint64_t& length, bool& valid, bool& end,
                       std::string& problem);
  std::string Where() const;
  Status FileShrank() const;

  const std::string path_;
  const Options options_;
  std::unique_ptr<ByteSource> source_;
  int64_t records_ = 0;
  int64_t skipped_regions_ = 0;
  uint64_t skipped_bytes_ = 0;
};

}  // namespace pipescope::engine
