#include "engine/sim/tfrecord_stats.h"

#include <sys/stat.h>

#include <map>
#include <mutex>
#include <tuple>

#include "engine/io/tfrecord_reader.h"

namespace pipescope::sim {
namespace {

TfRecordFileStats Count(const std::string& path, engine::Compression compression) {
  TfRecordFileStats s;
  auto reader = engine::TfRecordReader::Open(path, {compression, /*skip_corrupt=*/true});
  if (!reader.ok()) return s;
  s.readable = true;
  std::string record;
  bool end = false;
  while ((*reader)->Read(record, end).ok() && !end) {
    ++s.records;
    s.bytes += static_cast<int64_t>(record.size());
  }
  return s;
}

}  // namespace

TfRecordFileStats StatsOfTfRecordFile(const std::string& path, engine::Compression compression) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {};
  // A file rewritten in place shows a new size or modification time, and is read again.
  using Version = std::tuple<std::string, int64_t, int64_t, int64_t, int>;
  const Version version{path, static_cast<int64_t>(st.st_size),
                        static_cast<int64_t>(st.st_mtim.tv_sec),
                        static_cast<int64_t>(st.st_mtim.tv_nsec), static_cast<int>(compression)};
  static std::mutex mu;
  static std::map<Version, TfRecordFileStats> counted;
  {
    std::lock_guard lock(mu);
    auto it = counted.find(version);
    if (it != counted.end()) return it->second;
  }
  const TfRecordFileStats s = Count(path, compression);  // outside the lock: files are large
  std::lock_guard lock(mu);
  counted.emplace(version, s);
  return s;
}

}  // namespace pipescope::sim
