#include "app/cli/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace pipescope::cli {

ProgressBar::ProgressBar(std::string unit)
    : unit_(std::move(unit)), enabled_(isatty(STDERR_FILENO) != 0) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fputc('\n', stderr);
}

void ProgressBar::Update(int64_t done, int64_t total) {
  if (!enabled_ || total <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < total && drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * done / total);
  std::string bar(static_cast<size_t>(filled), '=');
  bar.resize(kWidth, ' ');
  std::fprintf(stderr, "\r[%s] %3d%%  %lld/%lld %s", bar.c_str(),
               static_cast<int>(100 * done / total), static_cast<long long>(done),
               static_cast<long long>(total), unit_.c_str());
  std::fflush(stderr);
}

}  // namespace pipescope::cli
