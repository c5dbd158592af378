// The Lessons dock: a lesson opens on its starting pipeline and runs it in the simulator,
// the goals show unmet with their figures and the timeline shows the run; the solution
// meets them; presenter mode enlarges everything and hides chrome, and comes back off.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDockWidget>
#include <QSettings>
#include <QStatusBar>
#include <QThread>

#include "gui_test_support.h"
#include "ui/main_window.h"
#include "ui/panels/lessons_panel.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

bool WaitForCheck(LessonsPanel& panel, int timeout_ms = 60000) {
  for (int waited = 0; waited < timeout_ms; waited += 10) {
    QApplication::processEvents();
    if (!panel.checking()) {
      QApplication::processEvents();
      return true;
    }
    QThread::msleep(10);
  }
  return false;
}

TEST(LessonsGuiTest, StartFailsWithItsFiguresAndTheSolutionPasses) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(window.OpenLesson("2"));
  LessonsPanel& panel = *window.lessons();
  EXPECT_TRUE(window.findChild<QDockWidget*>("lessons")->isVisible());
  ASSERT_TRUE(WaitForCheck(panel));
  const QStringList start = panel.GoalLines();
  ASSERT_EQ(start.size(), 2);
  EXPECT_TRUE(start[0].startsWith("\u2610  The device is busy at least 90%"))
      << start[0].toStdString();
  EXPECT_TRUE(start[0].endsWith("%")) << "the measured figure is shown";
  EXPECT_FALSE(panel.passed());
  DrawFrames(window);
  EXPECT_TRUE(window.verdict_text().contains("decode")) << window.verdict_text().toStdString();
  EXPECT_GT(window.timeline()->lanes().size(), 4u) << "the simulated run is on the timeline";

  panel.ShowSolution();
  EXPECT_TRUE(panel.spec_text().contains("num_parallel_calls: 2"));
  panel.RunCheck();
  ASSERT_TRUE(WaitForCheck(panel));
  EXPECT_TRUE(panel.passed());
  for (const QString& line : panel.GoalLines())
    EXPECT_TRUE(line.startsWith("\u2611")) << line.toStdString();
  window.grab().save("lesson_solved.png");

  // The learner's pipeline is remembered; Reset brings back the start.
  EXPECT_TRUE(QSettings()
                  .value("lessons/02-sequential-map/spec")
                  .toString()
                  .contains("num_parallel_calls: 2"));
  panel.Reset();
  EXPECT_TRUE(panel.spec_text().contains("num_parallel_calls: 1"));
}

TEST(LessonsGuiTest, BadPipelinesAndUnknownLessonsSayWhy) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  QString error;
  EXPECT_FALSE(window.lessons()->SelectLesson("no-such-lesson", &error));
  EXPECT_TRUE(error.contains("no lesson 'no-such-lesson'")) << error.toStdString();
  ASSERT_TRUE(window.lessons()->SelectLesson("vectorised-map"));
  EXPECT_TRUE(window.lessons()->spec_text().contains("normalize"));
}

TEST(LessonsGuiTest, PresenterModeEnlargesAndComesBack) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  const qreal normal_size = QApplication::font().pointSizeF();
  window.SetPresenterMode(true);
  DrawFrames(window);
  EXPECT_GT(QApplication::font().pointSizeF(), 1.5 * normal_size);
  EXPECT_FLOAT_EQ(window.timeline()->ui_scale(), 1.6f);
  EXPECT_FALSE(window.findChild<QDockWidget*>("statistics")->isVisible());
  EXPECT_FALSE(window.statusBar()->isVisible());
  EXPECT_EQ(QApplication::palette().color(QPalette::Window), QColor(Qt::black));
  EXPECT_TRUE(QSettings().value("view/presenter").toBool());
  window.grab().save("presenter_mode.png");
  window.SetPresenterMode(false);
  DrawFrames(window);
  EXPECT_DOUBLE_EQ(QApplication::font().pointSizeF(), normal_size);
  EXPECT_FLOAT_EQ(window.timeline()->ui_scale(), 1.0f);
  EXPECT_TRUE(window.findChild<QDockWidget*>("statistics")->isVisible());
  EXPECT_FALSE(QSettings().value("view/presenter").toBool());
}

}  // namespace
}  // namespace pipescope::ui
