#pragma once
// The main window composes the parts: the timeline in the centre; the docks (main_docks.h);
// the menus, each filled by the part it drives (the live run, tuning, comparing, the
// trace's files); a search box; a status bar with steps/s, input wait and device busy.
// What is shown is one TraceDocument; whenever it or the range looked at changes, the
// docks show its figures (document_figures.h).

#include <QMainWindow>
#include <QStringList>
#include <functional>
#include <memory>

#include "ui/document_figures.h"

class QAction;
class QLabel;

namespace pipescope::ui {

class CodePanel;
class CompareController;
class DocumentFiles;
class LessonsPanel;
class NotesPanel;
class PipelinePanel;
class RecentFiles;
class RunController;
class StatisticsPanel;
class TimelineWidget;
class TraceDocument;
class TuneController;
class ViewController;
struct MainDocks;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a .pstrace or a profiler trace, starts a live run of a .pbtxt, or of the pipeline
  // a .py builds (import-code) with its source in the Source dock; errors are shown in a
  // message box. Returns whether something is now shown.
  bool OpenFile(const QString& path);
  // Opens several traces of one job (one per host: .pstrace or profiler JSON) into one
  // view, a lane group per host, aligned on their clocks; the verdict says which host
  // waits most for input.
  bool OpenHosts(const QStringList& paths);
  // Shows a finished recording (lessons, tests, benchmarks); a live run stops.
  void ShowModel(std::shared_ptr<trace::Model> model, const QString& title);
  // Shows the Lessons dock on the lesson named (folder name or number); an unknown name is
  // reported in a message box (and returns false).
  bool OpenLesson(const QString& name);

  // Shows the document's figures for the range looked at (a live run does this four times
  // a second).
  void Refresh();

  // The parts the window composes.
  TraceDocument* document() const { return document_.get(); }
  RunController* run() const { return run_.get(); }
  TuneController* tuning() const { return tuning_.get(); }
  CompareController* compare() const { return compare_.get(); }
  ViewController* view() const { return view_; }
  DocumentFiles* files() const { return files_; }
  TimelineWidget* timeline() const { return timeline_; }
  StatisticsPanel* statistics() const;
  PipelinePanel* pipeline_panel() const;
  CodePanel* code_panel() const;
  LessonsPanel* lessons() const;
  NotesPanel* notes() const;

  // What the window says now: the verdict, the advice under it (and whether the simulator
  // is still trying changes), the status line, what range the figures are of.
  QString verdict_text() const;
  QString advice_text() const;
  bool advising() const;
  QString status_text() const;
  QString range_text() const;
  const trace::RangeAnalysis& analysis() const { return figures_.analysis; }

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void closeEvent(QCloseEvent* e) override;

 private:
  void BuildMenus();
  // Connects the parts' messages to the status bar and the docks to what they show.
  void ConnectParts();
  void OnDocumentOpened();
  void OnRunFinished();
  void ShowMessage(const QString& text, int timeout_ms);

  std::unique_ptr<TraceDocument> document_;
  TimelineWidget* timeline_;
  ViewController* view_;
  std::unique_ptr<MainDocks> docks_;
  std::unique_ptr<RunController> run_;
  std::unique_ptr<TuneController> tuning_;  // after run_: goes first, before the run it drives
  std::unique_ptr<CompareController> compare_;
  DocumentFiles* files_ = nullptr;
  RecentFiles* recent_ = nullptr;
  DocumentFigures figures_;
  QLabel* status_ = nullptr;
  QAction* save_ = nullptr;
  QAction* export_ = nullptr;
};

}  // namespace pipescope::ui
