#pragma once
// `pipescope-cli make-dataset --kind imagenet-like|mnist-like|chess --records N --shards K
//  --out DIR [--compression GZIP|ZLIB] [--seed S]`: writes sharded TFRecord files of
// tf.train.Examples, with a progress bar on a terminal.
//
// `pipescope-cli inspect FILE... [--json]`: per file its record count, compression, size,
// the features of its first records (name, type, lengths) and whether every checksum
// holds. Exit 1 when any file is unreadable or damaged (the message names the file, the
// record and its byte offset).

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace pipescope::cli {

struct MakeDatasetCommandOptions {
  std::string kind;
  int64_t records = 1000;
  int shards = 1;
  std::string out_dir;
  std::string compression;
  uint64_t seed = 1;
};
int MakeDatasetCommand(const MakeDatasetCommandOptions& options, std::ostream& out,
                       std::ostream& err);

struct InspectCommandOptions {
  std::vector<std::string> files;
  bool json = false;
  int64_t sample_records = 16;  // records whose features are described
};
int InspectCommand(const InspectCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
