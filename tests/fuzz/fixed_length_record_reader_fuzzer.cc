// Fuzz target: the fixed-length record reader on arbitrary file contents, cut by arbitrary
// sizes (the input's first three bytes: record, header and footer sizes), every
// compression. It must return records or an error, never crash or hang, and every record
// it gives must be record_bytes long.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/io/fixed_length_record_reader.h"

namespace {

const std::string& InputPath() {
  static const std::string path =
      std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
      "/pipescope_fixed_length_fuzz_" + std::to_string(getpid());
  return path;
}

void ReadAll(pipescope::engine::FixedLengthRecordFormat format) {
  auto reader = pipescope::engine::FixedLengthRecordReader::Open(InputPath(), format);
  if (!reader.ok()) return;
  std::string record;
  for (int i = 0; i < 100000; ++i) {
    bool end = false;
    if (!(*reader)->Read(record, end).ok() || end) return;
    if (static_cast<int64_t>(record.size()) != format.record_bytes) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  pipescope::engine::FixedLengthRecordFormat format;
  // Record sizes from 0 (refused) up; headers and footers that may outgrow the file.
  format.record_bytes = data[0] % 64;
  format.header_bytes = data[1] % 32;
  format.footer_bytes = data[2] % 32;
  std::FILE* f = std::fopen(InputPath().c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data + 3, 1, size - 3, f);
  std::fclose(f);
  using pipescope::engine::Compression;
  for (const Compression c : {Compression::kNone, Compression::kGzip, Compression::kZlib}) {
    format.compression = c;
    ReadAll(format);
  }
  return 0;
}
