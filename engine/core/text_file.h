#pragma once
// Reading a whole (small) file: specs, cost models, lessons, traces.

#include <string>

#include "engine/core/status.h"

namespace pipescope::engine {

// The file's bytes. NotFound when it cannot be opened: "cannot open <what> '<path>'".
Result<std::string> ReadWholeFile(const std::string& path, const std::string& what);

}  // namespace pipescope::engine
