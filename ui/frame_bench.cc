#include "ui/frame_bench.h"

#include <QApplication>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "ui/main_window.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

// Mean, median and max of one frame figure over a series of frames.
struct Series {
  std::vector<double> ms;
  double mean() const {
    double sum = 0;
    for (double v : ms) sum += v;
    return ms.empty() ? 0 : sum / static_cast<double>(ms.size());
  }
  double median() const {
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    return sorted.empty() ? 0 : sorted[sorted.size() / 2];
  }
  double max() const { return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()); }
  std::string Describe() const {
    char buf[96];
    std::snprintf(buf, sizeof buf, "mean %.2f ms, median %.2f ms, max %.2f ms", mean(), median(),
                  max());
    return buf;
  }
};

struct FrameTimes {
  Series build;  // NewFrame to Render: the timeline's own work
  Series total;  // with RenderDrawData (rasterised on this thread by a software GL)
};

FrameTimes Measure(TimelineWidget& timeline, int frames) {
  FrameTimes t;
  for (int i = 0; i < frames; ++i) {
    timeline.DrawFrameNow();
    t.build.ms.push_back(static_cast<double>(timeline.last_frame_build_ns()) / 1e6);
    t.total.ms.push_back(static_cast<double>(timeline.last_frame_cpu_ns()) / 1e6);
  }
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
  while (timeline.frames_drawn() == before) QApplication::processEvents();
  const double open_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const FrameTimes zoomed_out = Measure(timeline, frames);
  const int64_t middle = (timeline.view_start() + timeline.view_end()) / 2;
  timeline.SetView(middle, middle + 1'000'000);
  const FrameTimes one_ms = Measure(timeline, frames);
  std::printf("opened %s and drew the first frame in %.2f s\n", qPrintable(path), open_s);
  std::printf("timeline %dx%d px, %zu lanes, %d frames each\n", timeline.width(), timeline.height(),
              timeline.lanes().size(), frames);
  std::printf("build a frame, zoomed out:         %s\n", zoomed_out.build.Describe().c_str());
  std::printf("build a frame, 1 ms per screen:    %s\n", one_ms.build.Describe().c_str());
  std::printf("build + submit, zoomed out:        %s\n", zoomed_out.total.Describe().c_str());
  std::printf("build + submit, 1 ms per screen:   %s\n", one_ms.total.Describe().c_str());
  return 0;
}

}  // namespace pipescope::ui
