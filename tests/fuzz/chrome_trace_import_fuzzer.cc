// Fuzz target: the Chrome trace JSON importer (PyTorch and TensorFlow profiler traces) on
// arbitrary bytes. It must return a model or an error, never crash, hang or allocate
// without bound; what a person does next (the framework report, the analysis) must hold
// on whatever model comes back.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/import/chrome_trace_import.h"
#include "instrumentation/trace/import/framework_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pipescope::trace::ImportOptions options;
  options.max_bytes = 1 << 20;
  // Inputs over 512 bytes go through the chunked path too, in pieces of 128 bytes.
  options.chunked_above = 512;
  options.chunk_bytes = 128;
  auto imported = pipescope::trace::ImportChromeTraceText(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json", options);
  if (imported.ok()) {
    const auto summary = pipescope::trace::SummarizeFramework(*imported->model);
    const auto analysis = pipescope::trace::Analyze(*imported->model);
    (void)summary;
    (void)analysis;
  }
  return 0;
}
