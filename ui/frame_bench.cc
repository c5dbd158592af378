#include "ui/frame_bench.h"

#include <QApplication>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "instrumentation/trace/model.h"
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
  // Of the build, the model's lock held (reading, not drawing): CPU time, and wall time.
  Series locked_cpu;
  Series locked;
};

// `pan_ns` > 0: each frame moves the view by that much first, so that nothing drawn before
// can be reused (the cost of a frame while the user pans or zooms).
FrameTimes Measure(TimelineWidget& timeline, int frames, int64_t pan_ns = 0) {
  FrameTimes t;
  for (int i = 0; i < frames; ++i) {
    if (pan_ns != 0) {
      const int64_t step = i % 2 == 0 ? pan_ns : -pan_ns;  // back and forth: the same spans
      timeline.SetView(timeline.view_start() + step, timeline.view_end() + step);
    }
    timeline.DrawFrameNow();
    t.build.ms.push_back(static_cast<double>(timeline.last_frame_build_ns()) / 1e6);
    t.total.ms.push_back(static_cast<double>(timeline.last_frame_cpu_ns()) / 1e6);
    t.locked_cpu.ms.push_back(static_cast<double>(timeline.last_lock_cpu_ns()) / 1e6);
    t.locked.ms.push_back(static_cast<double>(timeline.last_lock_held_ns()) / 1e6);
  }
  return t;
}

// The process's peak resident memory (VmHWM), in bytes; 0 where /proc does not say.
size_t PeakResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

// How long the frames wait for the advice to be ready, at most.
constexpr int kAdviceWaitS = 120;

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
  // The advice is worked out on a thread of its own after the open, simulating changes on
  // both cores: frames measured beside it measure the contention. They are measured after.
  const auto opened = std::chrono::steady_clock::now();
  while (window.advising() &&
         std::chrono::steady_clock::now() - opened < std::chrono::seconds(kAdviceWaitS)) {
    QApplication::processEvents(QEventLoop::AllEvents, 50);
  }
  const double advice_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - opened).count();

  const FrameTimes zoomed_out = Measure(timeline, frames);
  // A pixel's worth of time a frame (the view keeps its width).
  const int64_t pixel_ns = std::max<int64_t>(
      1, (timeline.view_end() - timeline.view_start()) / std::max(1, timeline.width()));
  const FrameTimes panning = Measure(timeline, frames, pixel_ns);
  const int64_t middle = (timeline.view_start() + timeline.view_end()) / 2;
  timeline.SetView(middle, middle + 1'000'000);
  const FrameTimes one_ms = Measure(timeline, frames);
  std::printf("opened %s and drew the first frame in %.2f s\n", qPrintable(path), open_s);
  std::printf("the advice was ready %.1f s later%s; the frames are measured after it\n", advice_s,
              window.advising() ? " (still working: frames measured beside it)" : "");
  if (const trace::Model* model = timeline.model()) {
    const auto events = static_cast<double>(std::max<size_t>(1, model->event_count()));
    std::printf(
        "%zu events: the model holds %.0f MB (%.1f B/event), the process peaked at %.0f "
        "MB resident (%.1f B/event)\n",
        model->event_count(), static_cast<double>(model->memory_bytes()) / 1e6,
        static_cast<double>(model->memory_bytes()) / events,
        static_cast<double>(PeakResidentBytes()) / 1e6,
        static_cast<double>(PeakResidentBytes()) / events);
  }
  std::printf("timeline %dx%d px, %zu lanes, %d frames each\n", timeline.width(), timeline.height(),
              timeline.lanes().size(), frames);
  std::printf("build a frame, zoomed out:         %s\n", zoomed_out.build.Describe().c_str());
  std::printf("build a frame, zoomed out, panning: %s\n", panning.build.Describe().c_str());
  std::printf("build a frame, 1 ms per screen:    %s\n", one_ms.build.Describe().c_str());
  std::printf("of which the model locked, panning: %s\n", panning.locked_cpu.Describe().c_str());
  std::printf("the model locked, panning (wall):   %s\n", panning.locked.Describe().c_str());
  std::printf("build + submit, zoomed out:        %s\n", zoomed_out.total.Describe().c_str());
  std::printf("build + submit, 1 ms per screen:   %s\n", one_ms.total.Describe().c_str());
  return 0;
}

}  // namespace pipescope::ui
