#include "gui_test_support.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QTest>
#include <QTimer>

#include "app/session/recorded_run.h"
#include "app/session/simulated_run.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "ui/main_window.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {

std::string ResourcePath(const std::string& relative) {
  return std::string(PIPESCOPE_RESOURCES) + "/" + relative;
}

std::shared_ptr<trace::Model> RecordPipeline(const std::string& name, double seconds,
                                             const std::vector<std::string>& overrides) {
  auto spec = engine::LoadSpecFile(ResourcePath("pipelines/" + name + ".pbtxt"));
  EXPECT_TRUE(spec.ok());
  for (const auto& o : overrides) EXPECT_TRUE(engine::ApplyOverride(*spec, o).ok()) << o;
  session::RecordedRunOptions options;
  options.run.duration_ns = static_cast<int64_t>(seconds * 1e9);
  auto run = session::RunRecorded(*spec, options);
  EXPECT_TRUE(run.ok() && run->run_status.ok());
  return run.ok() ? run->model : nullptr;
}

std::shared_ptr<trace::Model> SimulatePipeline(const std::string& name, double seconds,
                                               const std::vector<std::string>& overrides) {
  auto spec = engine::LoadSpecFile(ResourcePath("pipelines/" + name + ".pbtxt"));
  EXPECT_TRUE(spec.ok());
  for (const auto& o : overrides) EXPECT_TRUE(engine::ApplyOverride(*spec, o).ok()) << o;
  auto cost = session::CostModelFor(*spec, "");
  EXPECT_TRUE(cost.ok()) << cost.status().message();
  if (!cost.ok()) return nullptr;
  session::SimulatedRunOptions options;
  options.sim.duration_s = seconds;
  auto run = session::RunSimulated(*spec, *cost, options);
  EXPECT_TRUE(run.ok() && run->run_status.ok());
  return run.ok() ? run->model : nullptr;
}

bool ShowWindow(MainWindow& window) {
  window.resize(1280, 800);
  window.show();
  return QTest::qWaitForWindowExposed(&window);
}

void DrawFrames(MainWindow& window, int frames) {
  for (int i = 0; i < frames; ++i) {
    window.timeline()->update();
    QTest::qWait(25);
  }
}

int CountPixels(const QImage& image, bool (*match)(QColor), int y0, int y1) {
  int n = 0;
  for (int y = std::max(0, y0); y < std::min(image.height(), y1); ++y) {
    for (int x = 0; x < image.width(); ++x) n += match(image.pixelColor(x, y)) ? 1 : 0;
  }
  return n;
}

int CountLanePixels(TimelineWidget& timeline, size_t lane, bool (*match)(QColor)) {
  const int top = static_cast<int>(timeline.lane_top(lane));
  return CountPixels(timeline.grabFramebuffer(), match, top, top + 16);
}

bool IsWaitRed(QColor c) { return c.red() > 200 && c.green() < 90 && c.blue() < 90; }

void CloseMessageBoxesSoon(int ms) {
  QTimer::singleShot(ms, [] {
    for (QWidget* w : QApplication::topLevelWidgets()) {
      if (w->inherits("QMessageBox") || w->inherits("QInputDialog")) w->close();
    }
  });
}

}  // namespace pipescope::ui
