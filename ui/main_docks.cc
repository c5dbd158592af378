#include "ui/main_docks.h"

#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

#include "ui/panels/advice_panel.h"
#include "ui/panels/code_panel.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/notes_panel.h"
#include "ui/panels/pipeline_panel.h"
#include "ui/panels/statistics_panel.h"
#include "ui/panels/tuning_chart.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

QDockWidget* Dock(QMainWindow* window, const QString& title, const char* name, QWidget* content,
                  Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(name);
  dock->setWidget(content);
  window->addDockWidget(area, dock);
  return dock;
}

QDockWidget* Named(QMainWindow* window, const char* name) {
  return window->findChild<QDockWidget*>(name);
}

QLabel* VerdictLine(const QString& text, QWidget* parent) {
  auto* l = new QLabel(text, parent);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->setMargin(6);
  // A word longer than the column (use_multiprocessing=True,) may be cut; the rest of the
  // text still wraps to the column instead of widening it past the dock.
  l->setMinimumWidth(1);
  return l;
}

void BuildStatisticsDock(QMainWindow* window, MainDocks& d) {
  d.statistics = new StatisticsPanel(window);
  auto* box = new QWidget(window);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  d.range_label = new QLabel("Whole trace", box);
  d.range_label->setMargin(4);
  layout->addWidget(d.range_label);
  layout->addWidget(d.statistics);
  Dock(window, "Statistics", "statistics", box, Qt::BottomDockWidgetArea);
}

void BuildVerdictDock(QMainWindow* window, MainDocks& d) {
  auto* box = new QWidget(window);
  auto* layout = new QVBoxLayout(box);
  d.verdict = VerdictLine("No trace open.", box);
  d.advice = new AdvicePanel(box);  // under the verdict it corrects
  d.tuning_label = VerdictLine("", box);
  d.tuning_label->hide();
  d.tuning_chart = new TuningChart(box);  // the tuner's trials, under its line
  d.tuning_chart->hide();
  d.gap_label = VerdictLine(kGapHint, box);
  for (QWidget* w : {static_cast<QWidget*>(d.verdict), static_cast<QWidget*>(d.advice),
                     static_cast<QWidget*>(d.tuning_label), static_cast<QWidget*>(d.tuning_chart),
                     static_cast<QWidget*>(d.gap_label)}) {
    layout->addWidget(w);
  }
  layout->addStretch(1);
  // Scrolls when its column is short (beside a lesson's pipeline): nothing is cut off.
  auto* scroll = new QScrollArea(window);
  scroll->setWidget(box);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  Dock(window, "Verdict", "verdict", scroll, Qt::RightDockWidgetArea);
}

}  // namespace

MainDocks BuildDocks(QMainWindow* window, TimelineWidget* timeline, TraceDocument* document) {
  MainDocks d;
  BuildStatisticsDock(window, d);
  BuildVerdictDock(window, d);

  d.pipeline = new PipelinePanel(window);
  d.pipeline->SetNavigationTarget(timeline);
  QDockWidget* pipeline = Dock(window, "Pipeline", "pipeline", d.pipeline, Qt::LeftDockWidgetArea);

  d.notes = new NotesPanel(document, timeline, window);
  QDockWidget* notes = Dock(window, "Notes", "notes", d.notes, Qt::RightDockWidgetArea);
  // The Python a pipeline was read from, beside the Pipeline dock that runs it.
  d.code = new CodePanel(window);
  d.code_dock = Dock(window, "Source", "code_source", d.code, Qt::LeftDockWidgetArea);
  window->splitDockWidget(pipeline, d.code_dock, Qt::Vertical);
  d.code_dock->hide();

  d.lessons = new LessonsPanel(window);
  QDockWidget* lessons = Dock(window, "Lessons", "lessons", d.lessons, Qt::LeftDockWidgetArea);
  window->tabifyDockWidget(pipeline, lessons);
  // The left column runs to the bottom: a lesson's text and pipeline need the height.
  window->setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  lessons->hide();  // until asked for (View > Lessons, --lesson)
  // The lesson's pipeline beside its text, above the verdict: both have room to read.
  Dock(window, "Lesson Pipeline", "lesson_pipeline", d.lessons->editor_panel(),
       Qt::RightDockWidgetArea)
      ->hide();
  window->tabifyDockWidget(Named(window, "verdict"), notes);
  Named(window, "verdict")->raise();
  return d;
}

void ShowLessonsDock(QMainWindow* window, bool presenter) {
  QDockWidget* dock = Named(window, "lessons");
  QDockWidget* editor = Named(window, "lesson_pipeline");
  const bool arranged = editor->isVisible();
  dock->show();
  dock->raise();
  editor->show();
  editor->raise();
  if (!arranged) ArrangeLessonDocks(window, presenter);
}

void ArrangeLessonDocks(QMainWindow* window, bool presenter) {
  QDockWidget* text = Named(window, "lessons");
  QDockWidget* editor = Named(window, "lesson_pipeline");
  QDockWidget* verdict = Named(window, "verdict");
  QDockWidget* notes = Named(window, "notes");
  if (editor->isFloating()) return;  // placed by hand
  const int width = window->width();
  const int height = window->height();
  if (presenter) {
    // Large type: the text on the left, the pipeline on the right with the verdict behind
    // it (the goals already give the figures).
    window->setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    window->addDockWidget(Qt::RightDockWidgetArea, verdict);
    window->tabifyDockWidget(verdict, editor);
    editor->raise();
    // A quarter of the width to the text, a third to the pipeline: the rest is the timeline.
    window->resizeDocks({text, editor}, {width / 4, width / 3}, Qt::Horizontal);
    return;
  }
  // One column on the left, the text over its pipeline; the verdict beside the statistics
  // under the timeline, which keeps more than 60% of a 1280 px window's width.
  window->setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
  window->addDockWidget(Qt::LeftDockWidgetArea, editor, Qt::Vertical);
  window->addDockWidget(Qt::BottomDockWidgetArea, verdict, Qt::Horizontal);
  if (notes != nullptr) window->tabifyDockWidget(verdict, notes);
  verdict->raise();
  editor->raise();
  window->resizeDocks({text}, {width * 9 / 25}, Qt::Horizontal);
  window->resizeDocks({text, editor}, {height * 11 / 20, height * 9 / 20}, Qt::Vertical);
  if (QDockWidget* statistics = Named(window, "statistics");
      statistics && !statistics->isHidden()) {
    window->resizeDocks({statistics, verdict}, {width / 3, width / 3}, Qt::Horizontal);
  }
  window->resizeDocks({verdict}, {height * 3 / 10}, Qt::Vertical);
}

void FitDocksForPresenter(QMainWindow* window) {
  QList<QDockWidget*> side;
  QList<int> widths;
  for (const auto& [name, share] : {std::pair{"lessons", 4}, std::pair{"verdict", 6}}) {
    if (QDockWidget* d = Named(window, name); d && !d->isHidden()) {
      side << d;
      widths << window->width() / share;
    }
  }
  window->resizeDocks(side, widths, Qt::Horizontal);
}

void FitSideDocks(QMainWindow* window) {
  // A lesson or a .py opened first has arranged the docks for reading it: kept.
  for (const char* arranged : {"lessons", "lesson_pipeline", "code_source"}) {
    if (Named(window, arranged)->isVisible()) return;
  }
  window->resizeDocks({Named(window, "pipeline"), Named(window, "verdict")},
                      {kSideDockWidth, kSideDockWidth}, Qt::Horizontal);
}

void ShowSourceDock(QMainWindow* window, const MainDocks& docks) {
  docks.code_dock->show();
  docks.code_dock->raise();
  // Room to read the code: the left column wider, the source as tall as the pipeline.
  if (QDockWidget* pipeline = Named(window, "pipeline")) {
    const int height = window->height();
    window->resizeDocks({pipeline, docks.code_dock}, {height / 2, height / 2}, Qt::Vertical);
    window->resizeDocks({docks.code_dock}, {std::max(420, window->width() / 4)}, Qt::Horizontal);
  }
}

}  // namespace pipescope::ui
