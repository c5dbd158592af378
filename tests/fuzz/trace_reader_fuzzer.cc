// Fuzz target: the .pstrace reader on arbitrary bytes. It must return a model or an
// error, never crash, hang or allocate without bound (the limits in record_framing.h).
// Built as a libFuzzer target with clang (tests/fuzz/CMakeLists.txt), and with
// standalone_fuzz_main.cc everywhere else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/format/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto loaded = pipescope::pstrace::ReadTraceBytes(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.pstrace");
  if (loaded.ok()) {
    // What a person does next with a trace: ask for its summary.
    const auto analysis = pipescope::trace::Analyze(*loaded->model);
    (void)analysis;
  }
  return 0;
}
