// The GUI, as a person sees it, under Xvfb: a recorded run shown in the main window — the
// statistics table, the verdict, the status bar, and a timeline that draws the consumer's
// waits in red and the ops' work in blue. Saves a screenshot (main_window.png in the
// working directory) for a person to look at.
#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>
#include <QStatusBar>
#include <QTableWidget>
#include <QTest>

#include "app/session/recorded_run.h"
#include "engine/spec/spec_loader.h"
#include "ui/gl_format.h"
#include "ui/main_window.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

std::shared_ptr<const trace::Model> RecordDemo() {
  auto spec =
      engine::LoadSpecFile(std::string(PIPESCOPE_RESOURCES) + "/pipelines/input_bound_demo.pbtxt");
  EXPECT_TRUE(spec.ok());
  session::RecordedRunOptions options;
  options.run.duration_ns = 800'000'000;
  auto run = session::RunRecorded(*spec, options);
  EXPECT_TRUE(run.ok() && run->run_status.ok());
  return std::shared_ptr<const trace::Model>(std::move(run->model));
}

int CountPixels(const QImage& image, bool (*match)(QColor)) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) n += match(image.pixelColor(x, y)) ? 1 : 0;
  }
  return n;
}

TEST(MainWindowGuiTest, ShowsTheTimelineStatisticsAndVerdictOfARun) {
  MainWindow window;
  window.resize(1280, 800);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  window.ShowModel(RecordDemo(), "demo");
  for (int i = 0; i < 10; ++i) {
    window.timeline()->update();
    QTest::qWait(30);
  }
  EXPECT_EQ(window.statistics()->rowCount(), 4);
  EXPECT_TRUE(window.verdict_text().contains("decode")) << window.verdict_text().toStdString();
  EXPECT_TRUE(window.windowTitle().startsWith("demo"));

  const QImage timeline = window.timeline()->grabFramebuffer();
  ASSERT_FALSE(timeline.isNull());
  const int red = CountPixels(
      timeline, [](QColor c) { return c.red() > 200 && c.green() < 90 && c.blue() < 90; });
  const int blue = CountPixels(timeline, [](QColor c) { return c.blue() > 180 && c.red() < 120; });
  EXPECT_GT(red, 500) << "the consumer's waits are drawn in red";
  EXPECT_GT(blue, 500) << "the ops' work is drawn in blue";
  window.grab().save("main_window.png");
}

TEST(MainWindowGuiTest, ABrokenFileIsAMessageNotACrash) {
  MainWindow window;
  // A modal message box would wait for a click: close it as soon as it shows.
  QTimer::singleShot(200, [] {
    for (QWidget* w : QApplication::topLevelWidgets()) {
      if (w->inherits("QMessageBox")) w->close();
    }
  });
  EXPECT_FALSE(window.OpenFile("/nonexistent/trace.pstrace"));
}

}  // namespace
}  // namespace pipescope::ui

int main(int argc, char** argv) {
  pipescope::ui::SetDefaultGlFormat();
  QApplication app(argc, argv);
  QApplication::setOrganizationName("PipescopeTests");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
