#pragma once
// Reads a JSON trace file (plain, or gzip, told by its magic) into memory with the
// padding simdjson reads past the end, with progress and Cancel, refusing files larger than
// `max_bytes` (uncompressed) with a clear error instead of exhausting the machine.

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/core/status.h"

namespace pipescope::trace {

// A plain file is mapped (its pages come straight from the page cache), with a page of
// zeros after it for the padding; gzip is decompressed into a buffer, whole by libdeflate
// where the trailer's size holds it, else by zlib's stream.
struct JsonText {
  char* data = nullptr;
  size_t size = 0;                // of the text
  size_t capacity = 0;            // readable bytes at `data`: the text and its padding
  std::shared_ptr<char> storage;  // owns `data`: a heap buffer or a file mapping
  std::string_view text() const { return {data, size}; }
};

// Text padded for the parser (tests and fuzzing parse strings that are not files).
JsonText PaddedJson(std::string_view text);

engine::Result<JsonText> ReadJsonFile(const std::string& path, uint64_t max_bytes,
                                      const std::function<bool(double)>& progress = {});

}  // namespace pipescope::trace
