#include "engine/core/text_file.h"

#include <fstream>
#include <sstream>

namespace pipescope::engine {

Result<std::string> ReadWholeFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + what + " '" + path + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return std::move(bytes).str();
}

}  // namespace pipescope::engine
