#pragma once
// A small but complete .pstrace (every record type, every column kind) for fuzzers to
// start from.

#include <string>

namespace pipescope::fuzz {

std::string SeedTrace();

}  // namespace pipescope::fuzz
