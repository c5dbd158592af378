#include "ui/frame_bench.h"

#include <QApplication>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "ui/main_window.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

struct FrameTimes {
  double mean_ms = 0;
  double max_ms = 0;
};

FrameTimes Measure(TimelineWidget& timeline, int frames) {
  std::vector<double> ms;
  for (int i = 0; i < frames; ++i) {
    timeline.repaint();  // synchronous: paintGL runs before this returns
    ms.push_back(static_cast<double>(timeline.last_frame_cpu_ns()) / 1e6);
  }
  FrameTimes t;
  for (double v : ms) t.mean_ms += v / static_cast<double>(ms.size());
  t.max_ms = *std::max_element(ms.begin(), ms.end());
  return t;
}

}  // namespace

int BenchFrames(MainWindow& window, const QString& path, int frames) {
  window.resize(1920, 1080);
  window.show();
  QApplication::processEvents();
  TimelineWidget& timeline = *window.timeline();
  const auto start = std::chrono::steady_clock::now();
  if (!window.OpenFile(path)) return 1;
  const int64_t before = timeline.frames_drawn();
  while (timeline.frames_drawn() == before) timeline.repaint();
  const double open_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const FrameTimes zoomed_out = Measure(timeline, frames);
  const int64_t middle = (timeline.view_start() + timeline.view_end()) / 2;
  timeline.SetView(middle, middle + 1'000'000);
  const FrameTimes one_ms = Measure(timeline, frames);
  std::printf("opened %s and drew the first frame in %.2f s\n", qPrintable(path), open_s);
  std::printf("frame CPU time, zoomed out:      mean %.2f ms, max %.2f ms (%d frames, %dx%d)\n",
              zoomed_out.mean_ms, zoomed_out.max_ms, frames, timeline.width(), timeline.height());
  std::printf("frame CPU time, 1 ms per screen: mean %.2f ms, max %.2f ms\n", one_ms.mean_ms,
              one_ms.max_ms);
  return 0;
}

}  // namespace pipescope::ui
