// Fuzz target: the TFRecord reader (strict and skip_corrupt, every compression) and
// tf.train.Example description on arbitrary file contents. It must return records or an
// error, never crash, hang or allocate from a corrupted length.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "engine/io/example_features.h"
#include "engine/io/tfrecord_reader.h"

namespace {

const std::string& InputPath() {
  static const std::string path =
      std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
      "/pipescope_tfrecord_fuzz_" + std::to_string(getpid());
  return path;
}

void ReadAll(pipescope::engine::Compression compression, bool skip_corrupt) {
  auto reader = pipescope::engine::TfRecordReader::Open(InputPath(), {compression, skip_corrupt});
  if (!reader.ok()) return;
  pipescope::engine::RecordFeatures features;
  std::string record;
  for (int i = 0; i < 10000; ++i) {
    bool end = false;
    if (!(*reader)->Read(record, end).ok() || end) return;
    pipescope::engine::DescribeRecord(record, features);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(InputPath().c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  using pipescope::engine::Compression;
  ReadAll(Compression::kNone, false);
  ReadAll(Compression::kNone, true);
  ReadAll(Compression::kGzip, false);
  ReadAll(Compression::kZlib, true);
  return 0;
}
