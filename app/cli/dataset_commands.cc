#include "app/cli/dataset_commands.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/progress_bar.h"
#include "engine/io/dataset_maker.h"
#include "engine/io/example_features.h"
#include "engine/io/tfrecord_reader.h"

namespace pipescope::cli {
namespace {

struct FileReport {
  std::string path;
  engine::Compression compression = engine::Compression::kNone;
  int64_t records = 0;
  uint64_t bytes = 0;
  engine::RecordFeatures features;
  std::string error;  // empty: every record read and every checksum held
};

FileReport InspectFile(const std::string& path, int64_t sample_records) {
  FileReport r;
  r.path = path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    r.error = "\"" + path + "\" is a directory: name its TFRecord files (DIR/*.tfrecord)";
    return r;
  }
  std::ifstream probe(path, std::ios::binary);
  if (!probe) {
    r.error = "cannot open \"" + path + "\"";
    return r;
  }
  char head[16] = {};
  probe.read(head, sizeof head);
  r.compression =
      engine::SniffCompression(std::string_view(head, static_cast<size_t>(probe.gcount())));
  probe.clear();
  probe.seekg(0, std::ios::end);
  r.bytes = static_cast<uint64_t>(std::max<std::streamoff>(0, probe.tellg()));
  auto reader = engine::TfRecordReader::Open(path, {r.compression, false});
  if (!reader.ok()) {
    r.error = reader.status().message();
    return r;
  }
  // The sampled records are copied out to be described; the rest are only checked, where
  // the page cache holds them.
  std::string record;
  uint64_t length = 0;
  while (true) {
    bool end = false;
    const bool sampled = r.records < sample_records;
    engine::Status s = sampled ? (*reader)->Read(record, end) : (*reader)->Check(length, end);
    if (!s.ok()) {
      r.error = s.message();
      break;
    }
    if (end) break;
    if (sampled) engine::DescribeRecord(record, r.features);
    ++r.records;
  }
  return r;
}

nlohmann::json ToJson(const FileReport& r) {
  nlohmann::json j{{"path", r.path},
                   {"records", r.records},
                   {"compression", engine::CompressionName(r.compression)},
                   {"bytes", r.bytes},
                   {"checksums_ok", r.error.empty()},
                   {"kind", r.features.kind}};
  j["features"] = nlohmann::json::array();
  for (const auto& [name, f] : r.features.features) {
    j["features"].push_back({{"name", name},
                             {"type", f.type},
                             {"min_length", f.min_length},
                             {"max_length", f.max_length}});
  }
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

void PrintText(const FileReport& r, std::ostream& out) {
  out << r.path << ": " << r.records << " records, " << engine::CompressionName(r.compression)
      << ", " << r.bytes << " bytes, " << (r.error.empty() ? "checksums ok" : "DAMAGED") << "\n";
  if (!r.features.kind.empty()) out << "  " << r.features.kind << "\n";
  for (const auto& [name, f] : r.features.features) {
    out << "  " << name << ": " << f.type << " x "
        << (f.min_length == f.max_length
                ? std::to_string(f.min_length)
                : std::to_string(f.min_length) + ".." + std::to_string(f.max_length))
        << "\n";
  }
}

}  // namespace

int MakeDatasetCommand(const MakeDatasetCommandOptions& options, std::ostream& out,
                       std::ostream& err) {
  auto kind = engine::ParseDatasetKind(options.kind);
  auto compression = engine::ParseCompression(options.compression);
  if (!kind.ok() || !compression.ok()) {
    err << "pipescope-cli: " << (!kind.ok() ? kind.status() : compression.status()).message()
        << "\n";
    return 2;
  }
  engine::MakeDatasetOptions o;
  o.kind = *kind;
  o.records = options.records;
  o.shards = options.shards;
  o.out_dir = options.out_dir;
  o.compression = *compression;
  o.seed = options.seed;
  ProgressBar bar("records");
  o.progress = [&](int64_t done, int64_t total) { bar.Update(done, total); };
  auto made = engine::MakeDataset(o);
  if (!made.ok()) {
    err << "pipescope-cli: " << made.status().message() << "\n";
    return made.status().code() == engine::StatusCode::kInvalidArgument ? 2 : 1;
  }
  out << "wrote " << options.records << " " << options.kind << " records in " << made->files.size()
      << " files (" << made->bytes << " bytes) to " << options.out_dir << "\n";
  return 0;
}

int InspectCommand(const InspectCommandOptions& options, std::ostream& out, std::ostream& err) {
  bool damaged = false;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& path : options.files) {
    const FileReport r = InspectFile(path, options.sample_records);
    if (!r.error.empty()) {
      damaged = true;
      err << "pipescope-cli: " << r.error << "\n";
    }
    if (options.json) {
      all.push_back(ToJson(r));
    } else {
      PrintText(r, out);
    }
  }
  if (options.json) out << all.dump(2) << "\n";
  return damaged ? 1 : 0;
}

}  // namespace pipescope::cli
