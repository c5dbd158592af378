#include "engine/sim/tfrecord_stats.h"

#include <sys/stat.h>

#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "engine/io/text_line_reader.h"
#include "engine/io/tfrecord_reader.h"

namespace pipescope::sim {
namespace {

// The next record's size: checked in place for a TFRecord file, read for a text file.
std::optional<uint64_t> NextLength(engine::TfRecordReader& reader, bool& end) {
  uint64_t length = 0;
  if (!reader.Check(length, end).ok()) return std::nullopt;
  return length;
}
std::optional<uint64_t> NextLength(engine::TextLineReader& reader, bool& end) {
  std::string line;
  if (!reader.Read(line, end).ok()) return std::nullopt;
  return line.size();
}
std::optional<uint64_t> NextLength(engine::FixedLengthRecordReader& reader, bool& end) {
  std::string record;
  if (!reader.Read(record, end).ok()) return std::nullopt;
  return record.size();
}

// Every record of a file, counted as a run reads it: `Reader` is TfRecordReader (corrupt
// stretches skipped), TextLineReader or FixedLengthRecordReader.
template <class Reader, class... OpenArgs>
TfRecordFileStats Count(const std::string& path, const OpenArgs&... args) {
  TfRecordFileStats s;
  auto reader = Reader::Open(path, args...);
  if (!reader.ok()) return s;
  s.readable = true;
  bool end = false;
  while (true) {
    const auto length = NextLength(**reader, end);
    if (!length || end) break;
    ++s.records;
    s.bytes += static_cast<int64_t>(*length);
  }
  return s;
}

enum class Format { kTfRecord, kTextLine, kFixedLength };

// `count` once per version of the file (its path, size and modification time) and format,
// with how a fixed-length format cuts it (`cut`: its record, header and footer sizes).
template <class CountFn>
TfRecordFileStats Cached(const std::string& path, engine::Compression compression, Format format,
                         const CountFn& count, std::tuple<int64_t, int64_t, int64_t> cut = {}) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {};
  // A file rewritten in place shows a new size or modification time, and is read again.
  using Version = std::tuple<std::string, int64_t, int64_t, int64_t, int, int,
                             std::tuple<int64_t, int64_t, int64_t>>;
  const Version version{path,
                        static_cast<int64_t>(st.st_size),
                        static_cast<int64_t>(st.st_mtim.tv_sec),
                        static_cast<int64_t>(st.st_mtim.tv_nsec),
                        static_cast<int>(compression),
                        static_cast<int>(format),
                        cut};
  static std::mutex mu;
  static std::map<Version, TfRecordFileStats> counted;
  {
    std::lock_guard lock(mu);
    auto it = counted.find(version);
    if (it != counted.end()) return it->second;
  }
  const TfRecordFileStats s = count();  // outside the lock: files are large
  std::lock_guard lock(mu);
  counted.emplace(version, s);
  return s;
}

}  // namespace

TfRecordFileStats StatsOfTfRecordFile(const std::string& path, engine::Compression compression) {
  return Cached(path, compression, Format::kTfRecord, [&] {
    return Count<engine::TfRecordReader>(
        path, engine::TfRecordReader::Options{compression, /*skip_corrupt=*/true});
  });
}

TfRecordFileStats StatsOfTextLineFile(const std::string& path, engine::Compression compression) {
  return Cached(path, compression, Format::kTextLine,
                [&] { return Count<engine::TextLineReader>(path, compression); });
}

engine::Result<TfRecordFileStats> StatsOfFixedLengthRecordFile(
    const std::string& path, const engine::FixedLengthRecordFormat& format) {
  if (format.compression == engine::Compression::kNone) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return TfRecordFileStats{};
    ASSIGN_OR_RETURN(const int64_t records,
                     engine::WholeRecordsIn(path, format, static_cast<uint64_t>(st.st_size)));
    return TfRecordFileStats{
        .readable = true, .records = records, .bytes = records * format.record_bytes};
  }
  return Cached(path, format.compression, Format::kFixedLength,
                [&] { return Count<engine::FixedLengthRecordReader>(path, format); },
                {format.record_bytes, format.header_bytes, format.footer_bytes});
}

}  // namespace pipescope::sim
