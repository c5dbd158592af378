#include "engine/core/file_glob.h"

#include <glob.h>

#include <algorithm>

namespace pipescope::engine {

std::vector<std::string> GlobFiles(const std::string& pattern) {
  glob_t g{};
  std::vector<std::string> files;
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) files.emplace_back(g.gl_pathv[i]);
  }
  globfree(&g);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace pipescope::engine
