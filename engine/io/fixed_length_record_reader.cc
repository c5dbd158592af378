#include "engine/io/fixed_length_record_reader.h"

#include <sys/stat.h>

namespace pipescope::engine {

namespace {

std::string NotWholeRecords(const std::string& path, const FixedLengthRecordFormat& format,
                            uint64_t body_bytes) {
  return "\"" + path + "\": its body, " + std::to_string(body_bytes) +
         " bytes between a header of " + std::to_string(format.header_bytes) + " and a footer of " +
         std::to_string(format.footer_bytes) + ", is not a whole number of records of " +
         std::to_string(format.record_bytes) + " bytes";
}

std::string ShorterThanItsFrame(const std::string& path, const FixedLengthRecordFormat& format,
                                uint64_t bytes) {
  return "\"" + path + "\" is " + std::to_string(bytes) + " bytes" +
         (format.compression == Compression::kNone ? "" : " decompressed") +
         ", shorter than its header (" + std::to_string(format.header_bytes) +
         " bytes) and footer (" + std::to_string(format.footer_bytes) + " bytes)";
}

Status CheckFormat(const std::string& path, const FixedLengthRecordFormat& format) {
  if (format.record_bytes < 1) {
    return InvalidArgument("\"" + path + "\": record_bytes must be at least 1, not " +
                           std::to_string(format.record_bytes));
  }
  if (format.header_bytes < 0 || format.footer_bytes < 0) {
    return InvalidArgument("\"" + path + "\": header_bytes and footer_bytes must not be negative");
  }
  return Status::Ok();
}

}  // namespace

Result<int64_t> WholeRecordsIn(const std::string& path, const FixedLengthRecordFormat& format,
                               uint64_t size) {
  RETURN_IF_ERROR(CheckFormat(path, format));
  const auto frame = static_cast<uint64_t>(format.header_bytes + format.footer_bytes);
  if (size < frame) return InvalidArgument(ShorterThanItsFrame(path, format, size));
  const auto record = static_cast<uint64_t>(format.record_bytes);
  if ((size - frame) % record != 0) {
    return InvalidArgument(NotWholeRecords(path, format, size - frame));
  }
  return static_cast<int64_t>((size - frame) / record);
}

Result<std::unique_ptr<FixedLengthRecordReader>> FixedLengthRecordReader::Open(
    const std::string& path, const FixedLengthRecordFormat& format) {
  RETURN_IF_ERROR(CheckFormat(path, format));
  // An uncompressed file's size says whether its body is whole records before it is read.
  struct stat st {};
  if (format.compression == Compression::kNone && stat(path.c_str(), &st) == 0 &&
      S_ISREG(st.st_mode)) {
    RETURN_IF_ERROR(WholeRecordsIn(path, format, static_cast<uint64_t>(st.st_size)).status());
  }
  ASSIGN_OR_RETURN(auto source, ByteSource::Open(path, format.compression));
  return std::unique_ptr<FixedLengthRecordReader>(
      new FixedLengthRecordReader(std::move(source), path, format));
}

Status FixedLengthRecordReader::SkipHeader() {
  const auto header = static_cast<size_t>(format_.header_bytes);
  ASSIGN_OR_RETURN(const size_t n, source_->Peek(header));
  if (n < header) {
    return DataLoss(ShorterThanItsFrame(path_, format_, n));
  }
  source_->Consume(header);
  header_skipped_ = true;
  return Status::Ok();
}

Status FixedLengthRecordReader::Read(std::string& record, bool& end) {
  end = false;
  if (!header_skipped_) RETURN_IF_ERROR(SkipHeader());
  // A record is one only with the whole footer still after it: the footer is what is left.
  const auto record_bytes = static_cast<size_t>(format_.record_bytes);
  const auto footer = static_cast<size_t>(format_.footer_bytes);
  auto available = source_->Peek(record_bytes + footer);
  if (!available.ok()) {
    return available.status().WithContext("fixed_length_record \"" + path_ + "\" at offset " +
                                          std::to_string(source_->offset()));
  }
  const size_t n = *available;
  if (n >= record_bytes + footer) {
    record.assign(source_->data(), record_bytes);
    source_->Consume(record_bytes);
    return Status::Ok();
  }
  if (source_->shrank()) {
    return DataLoss("\"" + path_ + "\" was cut short at byte " +
                    std::to_string(source_->offset() + n) + " while it was read");
  }
  if (n == footer) {
    end = true;
    return Status::Ok();
  }
  // Past the header, whatever is left is not the footer alone: the body stops inside a record,
  // or the file ends inside its header and footer.
  const uint64_t total = source_->offset() + n;
  const auto frame = static_cast<uint64_t>(format_.header_bytes + format_.footer_bytes);
  if (total < frame) return DataLoss(ShorterThanItsFrame(path_, format_, total));
  return DataLoss(NotWholeRecords(path_, format_, total - frame) + " (" + std::to_string(n) +
                  " bytes left at offset " + std::to_string(source_->offset()) + ")");
}

}  // namespace pipescope::engine
