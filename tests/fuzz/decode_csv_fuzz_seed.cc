#include "tests/fuzz/fuzz_seed.h"

namespace pipescope::fuzz {

// Rows as tabular datasets write them: a header, numbers, quoted text with a delimiter and
// a doubled quote inside, an empty field, a CRLF line.
std::string FuzzSeed() {
  return "a,b,c\n1,2.5,-3e2\n\"x,y\",\"say \"\"hi\"\"\",7\n4,,6\r\n 8 ,9,10\n";
}

}  // namespace pipescope::fuzz
