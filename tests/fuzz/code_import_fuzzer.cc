// Fuzz target: import-code on arbitrary bytes as a Python file. It must give a spec or an
// error, never crash or hang; a spec it gives must validate, and the code emitted for that
// spec must read back (the round trip every `--emit` relies on).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "app/code/code_emit.h"
#include "app/code/code_import.h"
#include "engine/spec/spec_validator.h"

namespace {

// Says which promise broke, with the input beside it, and ends the process.
[[noreturn]] void Broken(const std::string& what, const std::string& source) {
  std::ofstream("code_import_fuzz_failure.py", std::ios::binary) << source;
  std::fprintf(stderr, "code_import_fuzz: %s (input in code_import_fuzz_failure.py)\n",
               what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string source(reinterpret_cast<const char*>(data), size);
  auto imported = pipescope::code::ImportCode(source, "fuzz.py");
  if (!imported.ok()) return 0;
  if (auto s = pipescope::engine::ValidateSpec(imported->spec, "fuzz.py"); !s.ok()) {
    Broken("the imported spec does not validate: " + s.message(), source);
  }
  auto emitted = pipescope::code::EmitCode(imported->spec, imported->framework);
  if (!emitted.ok()) Broken("no code for the spec: " + emitted.status().message(), source);
  if (auto again = pipescope::code::ImportCode(emitted->text, "emitted.py"); !again.ok()) {
    Broken("the emitted code does not read back: " + again.status().message(), source);
  }
  return 0;
}
