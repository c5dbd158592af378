#include "engine/io/tfrecord_reader.h"

#include "engine/io/tfrecord_format.h"

namespace pipescope::engine {
namespace {

bool ChecksumHolds(const char* data, size_t n, uint32_t stored) {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
  // Lets mutated inputs past the checksums, so the fuzzer reaches the bounds and the
  // parsers behind them.
  (void)data, (void)n, (void)stored;
  return true;
#else
  return MaskedCrc(data, n) == stored;
#endif
}

}  // namespace

Compression SniffCompression(std::string_view b) {
  if (b.size() >= kTfRecordHeaderBytes && MaskedCrc(b.data(), 8) == LoadLe32(b.data() + 8)) {
    return Compression::kNone;
  }
  if (b.size() >= 2 && static_cast<uint8_t>(b[0]) == 0x1f && static_cast<uint8_t>(b[1]) == 0x8b) {
    return Compression::kGzip;
  }
  // A zlib header: deflate, a window of at most 32 KiB, and the first two bytes a multiple
  // of 31.
  if (b.size() >= 2) {
    const auto cmf = static_cast<uint8_t>(b[0]), flg = static_cast<uint8_t>(b[1]);
    if ((cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 == 0)
      return Compression::kZlib;
  }
  return Compression::kNone;
}

Result<std::unique_ptr<TfRecordReader>> TfRecordReader::Open(const std::string& path,
                                                             Options options) {
  ASSIGN_OR_RETURN(auto source, ByteSource::Open(path, options.compression));
  return std::unique_ptr<TfRecordReader>(new TfRecordReader(path, options, std::move(source)));
}

std::string TfRecordReader::Where() const {
  return "\"" + path_ + "\": record " + std::to_string(records_) + " at byte " +
         std::to_string(source_->offset());
}

Status TfRecordReader::TryRecordHere(std::string* record, uint64_t& length, bool& valid, bool& end,
                                     std::string& problem) {
  valid = false;
  end = false;
  ASSIGN_OR_RETURN(size_t have, source_->Peek(kTfRecordHeaderBytes));
  if (have == 0) {
    end = true;
    return Status::Ok();
  }
  if (have < kTfRecordHeaderBytes) {
    if (source_->shrank()) return FileShrank();
    problem = "the file ends inside a record header (truncated)";
    return Status::Ok();
  }
  const char* header = source_->data();
  length = LoadLe64(header);
  if (!ChecksumHolds(header, 8, LoadLe32(header + 8))) {
    problem = "the length's checksum does not match (corrupted)";
    return Status::Ok();
  }
  if (length > kMaxRecordBytes) {
    problem = "record length " + std::to_string(length) + " exceeds the 1 GiB limit";
    return Status::Ok();
  }
  const size_t total = kTfRecordHeaderBytes + static_cast<size_t>(length) + kTfRecordFooterBytes;
  ASSIGN_OR_RETURN(have, source_->Peek(total));
  if (have < total) {
    if (source_->shrank()) return FileShrank();
    problem = "the file ends inside the record's " + std::to_string(length) + " bytes (truncated)";
    return Status::Ok();
  }
  const char* data = source_->data() + kTfRecordHeaderBytes;
  const bool data_holds = ChecksumHolds(data, static_cast<size_t>(length), LoadLe32(data + length));
  // The copy reads what the checksum just read: both from the core's cache.
  if (data_holds && record != nullptr) record->assign(data, static_cast<size_t>(length));
  if (!data_holds) {
    problem = "the data's checksum does not match (corrupted)";
    return Status::Ok();
  }
  source_->Consume(total);
  valid = true;
  return Status::Ok();
}

Status TfRecordReader::FileShrank() const {
  return Status(StatusCode::kDataLoss,
                Where() + ": the file was cut short by another program while being read");
}

Status TfRecordReader::Read(std::string& record, bool& end) {
  uint64_t length = 0;
  return Next(&record, length, end);
}

Status TfRecordReader::Check(uint64_t& length, bool& end) { return Next(nullptr, length, end); }

Status TfRecordReader::Next(std::string* record, uint64_t& length, bool& end) {
  bool valid = false;
  std::string problem;
  RETURN_IF_ERROR(TryRecordHere(record, length, valid, end, problem));
  if (valid) {
    ++records_;
    return Status::Ok();
  }
  if (end) return Status::Ok();
  if (!options_.skip_corrupt) return Status(StatusCode::kDataLoss, Where() + ": " + problem);
  // Resynchronise: step one byte at a time until a whole valid record starts (or the data
  // ends). A false match needs both checksums to pass by chance.
  ++skipped_regions_;
  while (true) {
    source_->Consume(1);
    ++skipped_bytes_;
    RETURN_IF_ERROR(TryRecordHere(record, length, valid, end, problem));
    if (valid) {
      ++records_;
      return Status::Ok();
    }
    if (end) return Status::Ok();
  }
}

}  // namespace pipescope::engine
