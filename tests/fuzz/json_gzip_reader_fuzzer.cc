// Fuzz target: reading a gzipped trace (json_file.h) from arbitrary bytes: several members,
// damaged streams, cut-off files and trailers that give any size. It must return the text
// or an error, never crash or allocate without bound, and never return more text than
// its limit.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "instrumentation/trace/import/json_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path =
      "/tmp/pipescope_gzip_fuzz_" + std::to_string(getpid()) + ".json.gz";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  constexpr uint64_t kLimit = 1 << 20;
  auto text = pipescope::trace::ReadJsonFile(path, kLimit);
  if (text.ok() && text->size > kLimit) std::abort();
  return 0;
}
