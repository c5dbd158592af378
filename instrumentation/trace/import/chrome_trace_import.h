#pragma once
// Opens a Chrome trace JSON file (.json or .json.gz; what PyTorch's and TensorFlow's
// profilers write) as a trace model: read (json_file.h), parsed (trace_events.h) and given
// its meaning (framework_mapping.h). Progress covers the three steps; Cancel stops any.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct ImportOptions {
  std::function<bool(double)> progress;    // share done; false cancels (kCancelled)
  uint64_t max_bytes = uint64_t{4} << 30;  // of JSON text; larger files are refused
  // Pieces the event array is parsed in (trace_events.h); 0: the parser's defaults.
  size_t chunk_bytes = 0;
  size_t chunked_above = 0;
};

struct ImportedTrace {
  std::unique_ptr<Model> model;
  std::string framework;  // "pytorch", "tensorflow" or "chrome"
  std::vector<std::string> warnings;
  uint64_t json_bytes = 0;
};

engine::Result<ImportedTrace> ImportChromeTrace(const std::string& path,
                                                const ImportOptions& options = {});
// The same from text in memory (tests, fuzzing); `name` stands for the file in errors.
engine::Result<ImportedTrace> ImportChromeTraceText(std::string_view json, const std::string& name,
                                                    const ImportOptions& options = {});

}  // namespace pipescope::trace
