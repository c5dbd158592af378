#pragma once
// The main window: the timeline in the centre; the Pipeline (knobs), Statistics, Verdict
// and Notes docks; menus; a search box; a status bar with steps/s, input wait and device
// busy. Opens a saved trace (.pstrace) to explore it, or runs a pipeline spec (.pbtxt)
// live: the timeline follows the run, the docks refresh four times a second, and knob
// edits change the running engine.

#include <QMainWindow>
#include <QTimer>
#include <memory>
#include <mutex>

#include "app/session/live_run.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/model.h"

class QAction;
class QLabel;
class QLineEdit;
class QMenu;

namespace pipescope::ui {

class TimelineWidget;
class StatisticsPanel;
class PipelinePanel;
class NotesPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a .pstrace, or starts a live run of a .pbtxt; errors are shown in a message box.
  // Returns whether something is now shown.
  bool OpenFile(const QString& path);
  // Shows a finished recording (tests, benchmarks).
  void ShowModel(std::shared_ptr<trace::Model> model, const QString& title);

  // ---- the live run (Run menu)
  bool StartRun();  // runs the last opened spec again
  void SetPaused(bool paused);
  void StopRun();
  // Stops the run and waits until its recording is complete (at most `timeout_ms`).
  bool StopRunAndWait(int timeout_ms = 10000);
  bool run_is_live() const { return live_ && !live_->finished(); }

  // Writes the shown trace, with its notes, to `path` (the run is stopped first).
  bool SaveTrace(const QString& path);
  // Pins a note to [t0, t1] (t0 == t1: one instant).
  void AddNote(int64_t t0, int64_t t1, const QString& text);
  void SetDarkTheme(bool dark);
  // Recomputes the docks from the model (the refresh timer does this while a run is live).
  void Refresh();

  TimelineWidget* timeline() const { return timeline_; }
  StatisticsPanel* statistics() const { return statistics_; }
  PipelinePanel* pipeline_panel() const { return pipeline_; }
  QString verdict_text() const;
  QString status_text() const;
  const trace::RangeAnalysis& analysis() const { return analysis_; }
  session::LiveRun* live_run() const { return live_.get(); }

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void closeEvent(QCloseEvent* e) override;

 private:
  void BuildDocks();
  void BuildMenus();
  void OpenDialog();
  void SaveDialog();
  void RequestNote(int64_t t0, int64_t t1);
  void RememberRecent(const QString& path);
  void RefreshRecentMenu();
  bool OpenTrace(const QString& path);
  bool OpenSpec(const QString& path);
  void Show(std::shared_ptr<trace::Model> model, std::mutex* lock, const QString& title);
  void UpdateRunActions();
  void OnRunFinished();
  void OnSelection(int64_t t0, int64_t t1);
  bool ConfirmDiscardNotes();

  TimelineWidget* timeline_;
  StatisticsPanel* statistics_ = nullptr;
  PipelinePanel* pipeline_ = nullptr;
  NotesPanel* notes_ = nullptr;
  QLabel* verdict_ = nullptr;
  QLabel* gap_label_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* range_label_ = nullptr;
  QLineEdit* search_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMenu* docks_menu_ = nullptr;
  QAction* start_ = nullptr;
  QAction* pause_ = nullptr;
  QAction* stop_ = nullptr;
  QAction* restart_ = nullptr;
  QAction* save_ = nullptr;
  QAction* dark_ = nullptr;

  std::shared_ptr<trace::Model> model_;
  std::mutex* model_lock_ = nullptr;  // the live run's lock while its model is shown
  std::unique_ptr<session::LiveRun> live_;
  spec::PipelineSpec spec_;  // the spec a live run was started from
  QString spec_path_;
  bool have_spec_ = false;
  QString title_;
  bool notes_unsaved_ = false;
  bool run_finish_handled_ = true;
  int64_t sel_t0_ = 0;
  int64_t sel_t1_ = 0;
  trace::RangeAnalysis analysis_;
  QTimer refresh_timer_;
};

}  // namespace pipescope::ui
