#include "ui/timeline/time_axis.h"

#include <cstdio>

namespace pipescope::ui {

std::string FormatDuration(double ns) {
  char buf[32];
  const double a = std::fabs(ns);
  if (a >= 1e9) {
    std::snprintf(buf, sizeof buf, "%.3g s", ns / 1e9);
  } else if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  } else if (a >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.3g us", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  }
  return buf;
}

}  // namespace pipescope::ui
