#pragma once
// A one-line progress bar on a terminal's stderr ("[=====     ] 45%  4500/10000 records"),
// redrawn at most ten times a second. Prints nothing when stderr is not a terminal, so
// scripts and logs stay clean.

#include <chrono>
#include <cstdint>
#include <string>

namespace pipescope::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::string unit);
  ~ProgressBar();  // ends the line
  void Update(int64_t done, int64_t total);

 private:
  const std::string unit_;
  const bool enabled_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace pipescope::cli
