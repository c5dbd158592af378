#pragma once
// Writes sharded TFRecord files of tf.train.Examples, so every example pipeline runs on
// real files: `pipescope-cli make-dataset`.
//
//   imagenet-like  image/encoded (a real JPEG, 64-320 px a side), image/format,
//                  image/height, image/width, image/class/label (0-999)
//   mnist-like     image (784 floats, 28x28 grey levels in [0, 1]), label (0-9)
//   chess          board (96 bytes: 12 piece planes x 64 squares, bit-packed), result
//                  (-1, 0, 1 as float), move_count
//
// Files are <out>/<kind>-<shard>-of-<shards>.tfrecord[.gz|.zz]; the same seed gives the
// same bytes.

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/io/byte_source.h"
#include "engine/work/jpeg_codec.h"

namespace pipescope::engine {

enum class DatasetKind { kImagenetLike, kMnistLike, kChess };
Result<DatasetKind> ParseDatasetKind(const std::string& name);
std::string DatasetKindName(DatasetKind kind);

struct MakeDatasetOptions {
  DatasetKind kind = DatasetKind::kMnistLike;
  int64_t records = 1000;
  int shards = 1;
  std::string out_dir;
  Compression compression = Compression::kNone;
  uint64_t seed = 1;
  // Called after each record with (records written, records in all); may be empty.
  std::function<void(int64_t, int64_t)> progress;
};

struct MadeDataset {
  std::vector<std::string> files;
  uint64_t bytes = 0;
};

Result<MadeDataset> MakeDataset(const MakeDatasetOptions& options);

// A photo-like w x h picture (gradients, discs, noise), so that JPEG sizes vary as
// photos' do.
RgbImage SyntheticPhoto(int width, int height, std::mt19937_64& rng);

// One serialized tf.train.Example of `kind`.
Result<std::string> MakeExampleRecord(DatasetKind kind, std::mt19937_64& rng);

}  // namespace pipescope::engine
