#pragma once
// The files a shell pattern matches, sorted: for the simulator's cost model and import-code,
// which only need the names (list_files' dataset orders and shuffles its own matches).

#include <string>
#include <vector>

namespace pipescope::engine {

// Empty when nothing matches or the pattern cannot be read.
std::vector<std::string> GlobFiles(const std::string& pattern);

}  // namespace pipescope::engine
