#pragma once
// Runs pipescope-cli (PIPESCOPE_CLI) as a user would, for the CLI integration tests.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace pipescope::testing {

struct CliOutput {
  int exit_code;
  std::string out;  // stdout and stderr together
};

inline CliOutput Cli(const std::string& args) {
  const std::string command = std::string(PIPESCOPE_CLI) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The JSON document at the end of a command's output (commands that report progress on
// stderr print it first; Cli() merges the two streams).
inline std::string JsonPart(const std::string& out) {
  const size_t start = out.find("\n{");
  return out.substr(start == std::string::npos ? 0 : start + 1);
}

inline std::string Pipeline(const std::string& name) {
  return std::string(PIPESCOPE_RESOURCES) + "/pipelines/" + name;
}

}  // namespace pipescope::testing
