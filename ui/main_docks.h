#pragma once
// The main window's docks and where they go: Statistics (with the range it covers),
// Verdict (the verdict, the advice under it, the tuner's line and chart, the clicked gap),
// Pipeline with the Source of a .py beside it, Notes, Lessons and the lesson's pipeline;
// and how a lesson and presenter mode arrange them.

class QDockWidget;
class QLabel;
class QMainWindow;

namespace pipescope::ui {

class AdvicePanel;
class CodePanel;
class LessonsPanel;
class NotesPanel;
class PipelinePanel;
class StatisticsPanel;
class TimelineWidget;
class TraceDocument;
class TuningChart;

// What the Verdict dock says until a gap is clicked.
inline constexpr const char* kGapHint =
    "Click a red gap in the consumer or device lane to see what caused it.";

struct MainDocks {
  StatisticsPanel* statistics = nullptr;
  QLabel* range_label = nullptr;  // what range the statistics and verdict are of
  QLabel* verdict = nullptr;
  AdvicePanel* advice = nullptr;
  QLabel* tuning_label = nullptr;  // the tuner's line (hidden while none tunes)
  TuningChart* tuning_chart = nullptr;
  QLabel* gap_label = nullptr;
  PipelinePanel* pipeline = nullptr;
  NotesPanel* notes = nullptr;
  CodePanel* code = nullptr;
  QDockWidget* code_dock = nullptr;
  LessonsPanel* lessons = nullptr;
};

// Makes the docks of `window` around `timeline` showing `document`, in their first places.
MainDocks BuildDocks(QMainWindow* window, TimelineWidget* timeline, TraceDocument* document);

// The lesson's text over its pipeline on the left, the verdict beside the statistics under
// the timeline; in presenter mode's large type, the text on the left and the pipeline on the
// right with the verdict behind it.
void ShowLessonsDock(QMainWindow* window, bool presenter);
void ArrangeLessonDocks(QMainWindow* window, bool presenter);
// Presenter mode: most of the width to the timeline, a quarter to the lesson, a sixth to
// the verdict.
void FitDocksForPresenter(QMainWindow* window);
// The side docks' first widths, where no layout was saved: the timeline keeps at least 60%
// of a 1280 px window beside the Pipeline and Verdict docks. Not where a lesson or a .py
// has arranged them already.
void FitSideDocks(QMainWindow* window);
inline constexpr int kSideDockWidth = 236;
// The Source dock shown beside the Pipeline dock, with room to read the code.
void ShowSourceDock(QMainWindow* window, const MainDocks& docks);

}  // namespace pipescope::ui
