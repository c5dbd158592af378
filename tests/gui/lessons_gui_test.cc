// The Lessons dock: a lesson opens on its starting pipeline and runs it in the simulator,
// the goals show unmet with their figures and the timeline shows the run; the solution
// meets them; presenter mode enlarges everything and hides chrome, and comes back off.
#include <gtest/gtest.h>

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QDockWidget>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextLayout>
#include <QThread>
#include <functional>

#include "gui_test_support.h"
#include "ui/main_window.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/picture_text.h"
#include "ui/panels/spec_editor.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/view_controller.h"

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

// Lines of text a scrolling text widget shows at once, in its own font.
int VisibleLines(const QAbstractScrollArea& area) {
  return area.viewport()->height() / area.fontMetrics().lineSpacing();
}

// Runs `check` on a fresh 1280x800 window, once at the normal size and once in presenter
// mode (turned off again afterwards: the setting persists).
void InNormalAndPresenterMode(const std::function<void(MainWindow&, bool presenter)>& check) {
  for (const bool presenter : {false, true}) {
    SCOPED_TRACE(presenter ? "presenter mode" : "normal");
    MainWindow window;
    ASSERT_TRUE(ShowWindow(window));
    if (presenter) window.view()->SetPresenterMode(true);
    check(window, presenter);
    if (presenter) window.view()->SetPresenterMode(false);
  }
}

// At 1280x800 the lesson's text and its pipeline are both in view, neither in a tab behind
// the other, and neither scrolls sideways (lesson 4 has the longest lines of the shipped
// lessons' specs). At the normal size they share the left column, over each other, and the
// timeline keeps 60% of the width; in presenter mode's large type they stand side by side,
// 20 lines each.
TEST(LessonsGuiTest, TextAndPipelineHaveRoomToReadAt1280x800) {
  InNormalAndPresenterMode([](MainWindow& window, bool presenter) {
    ASSERT_TRUE(window.OpenLesson("4"));
    ASSERT_TRUE(WaitForCheck(*window.lessons()));
    DrawFrames(window);
    EXPECT_EQ(window.size(), QSize(1280, 800));
    const QTextBrowser& text = *window.lessons()->explanation();
    const SpecEditor& editor = *window.lessons()->editor();
    ASSERT_TRUE(text.isVisible());
    ASSERT_TRUE(editor.isVisible()) << "the pipeline is beside the text, not in a tab behind it";
    const int lines = presenter ? 20 : 10;
    EXPECT_GE(VisibleLines(text), lines) << "text " << text.viewport()->height() << " px";
    EXPECT_GE(VisibleLines(editor), lines) << "editor " << editor.viewport()->height() << " px";
    if (!presenter) {
      EXPECT_GE(window.timeline()->width(), window.width() * 6 / 10)
          << window.timeline()->width() << " px of " << window.width();
    }
    EXPECT_FALSE(text.horizontalScrollBar()->isVisible());
    EXPECT_FALSE(editor.horizontalScrollBar()->isVisible());
    EXPECT_GT(editor.document()->blockCount(), 10);
    window.grab().save(presenter ? "lesson_presenter.png" : "lesson_1280x800.png");
  });
}

// Timeline Only (F11) gives the timeline the whole window beside a lesson in either mode
// (in presenter mode's large type the lesson leaves it 41% of a 1280 px window), and brings
// the lesson back as it was.
TEST(LessonsGuiTest, TimelineOnlyGivesTheTimelineTheWindowAndBringsTheLessonBack) {
  InNormalAndPresenterMode([](MainWindow& window, bool presenter) {
    ASSERT_TRUE(window.OpenLesson("4"));
    ASSERT_TRUE(WaitForCheck(*window.lessons()));
    DrawFrames(window);
    const int beside = window.timeline()->width();
    ASSERT_TRUE(window.lessons()->explanation()->isVisible());
    window.view()->SetTimelineOnly(true);
    DrawFrames(window);
    EXPECT_GE(window.timeline()->width(), window.width() * 6 / 10)
        << (presenter ? "presenter: " : "") << window.timeline()->width() << " px of "
        << window.width();
    EXPECT_FALSE(window.lessons()->explanation()->isVisible());
    window.grab().save(presenter ? "timeline_only_presenter.png" : "timeline_only.png");
    window.view()->SetTimelineOnly(false);
    DrawFrames(window);
    EXPECT_TRUE(window.lessons()->explanation()->isVisible());
    EXPECT_TRUE(window.lessons()->editor()->isVisible());
    EXPECT_NEAR(window.timeline()->width(), beside, 4) << "the layout it hid, as it was";
  });
}

// Every lesson's pictures (its fenced timelines and orderings) keep their columns at
// 1280x800: each picture line is one laid-out line, never wrapped. At the normal size they are
// drawn at the text's own size; presenter mode's large type shrinks a picture only as far as
// its widest line needs, and never below a readable size.
TEST(LessonsGuiTest, EveryLessonsPicturesKeepTheirColumnsAt1280x800) {
  InNormalAndPresenterMode([](MainWindow& window, bool presenter) {
    LessonsPanel& panel = *window.lessons();
    int lessons_with_pictures = 0;
    for (int lesson = 1; lesson <= 15; ++lesson) {
      ASSERT_TRUE(window.OpenLesson(QString::number(lesson)));
      ASSERT_TRUE(WaitForCheck(panel));
      DrawFrames(window);
      PictureText& text = *panel.explanation();
      const QList<qreal> sizes = text.PictureSizes();
      lessons_with_pictures += !sizes.isEmpty();
      for (const qreal pt : sizes) {
        EXPECT_GE(pt, PictureText::kSmallestPicturePt) << "lesson " << lesson;
        if (!presenter) {
          EXPECT_EQ(pt, text.font().pointSizeF()) << "lesson " << lesson << " shrank a picture";
        }
      }
      for (QTextBlock b = text.document()->begin(); b.isValid(); b = b.next()) {
        if (!b.blockFormat().hasProperty(QTextFormat::BlockCodeFence)) continue;
        const int lines = static_cast<int>(b.text().count(QChar::LineSeparator)) + 1;
        const QRectF box = text.document()->documentLayout()->blockBoundingRect(b);
        EXPECT_EQ(b.layout()->lineCount(), lines)
            << "lesson " << lesson << " wraps: " << b.text().toStdString();
        for (int i = 0; i < b.layout()->lineCount(); ++i) {
          EXPECT_LE(box.x() + b.layout()->lineAt(i).naturalTextWidth(), text.viewport()->width())
              << "lesson " << lesson << " is cut off: " << b.text().toStdString();
        }
      }
    }
    EXPECT_EQ(lessons_with_pictures, 15);
  });
}

// A pipeline that does not parse is marked at the line the parser names; editing clears it.
TEST(LessonsGuiTest, AnErrorIsShownAtItsLine) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  ASSERT_TRUE(window.OpenLesson("2"));
  LessonsPanel& panel = *window.lessons();
  ASSERT_TRUE(WaitForCheck(panel));
  SpecEditor& editor = *panel.editor();
  editor.setPlainText(
      "name: \"broken\"\nsource { range { stop: 3 } }\nops { batch { batch_sz: 3 } }\n");
  EXPECT_EQ(editor.error_line(), 0);
  panel.RunCheck();
  EXPECT_EQ(editor.error_line(), 3);
  EXPECT_EQ(editor.extraSelections().size(), 1);
  editor.appendPlainText("# fixed");
  EXPECT_EQ(editor.error_line(), 0) << "editing clears the mark";
  EXPECT_EQ(SpecEditor::ErrorLineOf("your pipeline:12:7: no field", "your pipeline"), 12);
  EXPECT_EQ(SpecEditor::ErrorLineOf("your pipeline: not a spec", "your pipeline"), 0);
  panel.Reset();
}

TEST(LessonsGuiTest, PresenterModeEnlargesAndComesBack) {
  MainWindow window;
  ASSERT_TRUE(ShowWindow(window));
  const qreal normal_size = QApplication::font().pointSizeF();
  window.view()->SetPresenterMode(true);
  DrawFrames(window);
  EXPECT_GT(QApplication::font().pointSizeF(), 1.5 * normal_size);
  EXPECT_FLOAT_EQ(window.timeline()->ui_scale(), 1.6f);
  EXPECT_FALSE(window.findChild<QDockWidget*>("statistics")->isVisible());
  EXPECT_FALSE(window.statusBar()->isVisible());
  EXPECT_EQ(QApplication::palette().color(QPalette::Window), QColor(Qt::black));
  EXPECT_TRUE(QSettings().value("view/presenter").toBool());
  window.grab().save("presenter_mode.png");
  window.view()->SetPresenterMode(false);
  DrawFrames(window);
  EXPECT_DOUBLE_EQ(QApplication::font().pointSizeF(), normal_size);
  EXPECT_FLOAT_EQ(window.timeline()->ui_scale(), 1.0f);
  EXPECT_TRUE(window.findChild<QDockWidget*>("statistics")->isVisible());
  EXPECT_FALSE(QSettings().value("view/presenter").toBool());
}

}  // namespace
}  // namespace pipescope::ui
