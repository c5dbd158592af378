#include "tests/fuzz/fuzz_seed.h"

namespace pipescope::fuzz {

// The kernel test's file: records of 3 bytes after a header of 5, before a footer of 2.
std::string FuzzSeed() { return std::string("\x03\x05\x02", 3) + "HHHHH111222333FF"; }

}  // namespace pipescope::fuzz
