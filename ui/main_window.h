#pragma once
// The main window: the timeline in the centre; the Pipeline (knobs), Statistics, Verdict
// and Notes docks; menus; a search box; a status bar with steps/s, input wait and device
// busy. Opens a saved trace (.pstrace) to explore it, or runs a pipeline spec (.pbtxt)
// live: the timeline follows the run, the docks refresh four times a second, and knob
// edits change the running engine.

#include <QMainWindow>
#include <QTimer>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "app/code/code_import.h"
#include "app/session/live_run.h"
#include "app/session/live_tuning.h"
#include "app/session/trace_whatif.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/model.h"
#include "ui/timeline_focus.h"

class QAction;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;

namespace pipescope::ui {

class TimelineWidget;
class StatisticsPanel;
class TuningChart;
class PipelinePanel;
class NotesPanel;
class CodePanel;
class LessonsPanel;
class AdvicePanel;
class CompareWindow;
class GridWindow;

// What the Verdict dock says until a gap is clicked.
inline constexpr const char* kGapHint =
    "Click a red gap in the consumer or device lane to see what caused it.";

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a .pstrace or a profiler trace, starts a live run of a .pbtxt, or of the pipeline
  // a .py builds (import-code) with its source in the Source dock; errors are shown in a
  // message box. Returns whether something is now shown.
  bool OpenFile(const QString& path);
  // The running pipeline as code (Edit > Copy as Code): a pipeline opened from a .py is that
  // file with the current knobs written in; any other, code in its framework. Empty when
  // nothing runs a spec; `notes` gets what the code could not say.
  QString PipelineAsCode(QStringList* notes = nullptr) const;
  CodePanel* code_panel() const { return code_panel_; }
  // Opens several traces of one job (one per host: .pstrace or profiler JSON) into one
  // view, a lane group per host, aligned on their clocks; the verdict says which host
  // waits most for input.
  bool OpenHosts(const QStringList& paths);
  // Shows the Lessons dock on the lesson named (folder name or number); an unknown name is
  // reported in a message box (and returns false).
  bool OpenLesson(const QString& name);
  LessonsPanel* lessons() const { return lessons_; }
  // Presenter mode, for projectors: everything larger, high contrast, only the timeline,
  // the verdict and the lessons shown. Remembered between sessions.
  void SetPresenterMode(bool on);
  // Every dock hidden (the timeline has the whole window) or the layout it hid brought back.
  void SetTimelineOnly(bool on);
  bool timeline_only() const { return focus_.on(); }
  bool presenter_mode() const { return presenter_; }
  // Shows a finished recording (tests, benchmarks).
  void ShowModel(std::shared_ptr<trace::Model> model, const QString& title);

  // ---- the live run (Run menu)
  bool StartRun();  // runs the last opened spec again
  void SetPaused(bool paused);
  void StopRun();
  // Stops the run and waits until its recording is complete (at most `timeout_ms`).
  bool StopRunAndWait(int timeout_ms = 10000);
  bool run_is_live() const { return live_ && !live_->finished(); }

  // ---- the live pipeline's ops (the Pipeline dock's order editor)
  // Rebuilds the live run from `after`: at once when the move rules say what reaches the
  // training step is kept, else only once the confirmation agrees. Returns whether it
  // was applied; the timeline gets a marker with `description`.
  bool ChangePipeline(const spec::PipelineSpec& after, const QString& description);
  // Runs `spec`, a piece of advice (`change` says which), in place of the pipeline shown.
  void RunAdvised(const spec::PipelineSpec& spec, const QString& change);
  // Asks a person to confirm what they may not have meant, given the sentence that says it
  // (a change that alters the output, in the rules' words; a grid of many points): default
  // a message box; tests answer for the person.
  void SetConfirmation(std::function<bool(const QString& explanation)> confirm) {
    confirm_ = std::move(confirm);
  }
  // Writes the live run's current spec (order and knob values) as text.
  bool SaveSpec(const QString& path);

  // ---- autotuning and comparing (Tune menu; main_window_tune.cc)
  // Starts an autotuner ("pipescope" or "tfdata") on the live run; its knob moves show on
  // the timeline and its progress under the verdict. Periodic when the menu says so.
  bool StartTuning(const QString& algorithm);
  void StopTuning();
  session::LiveTuning* live_tuning() const { return tuning_.get(); }
  QString tuning_text() const;  // the tuning's line under the verdict
  TuningChart* tuning_chart() const { return tuning_chart_; }  // the tuner's trials
  // How long Compare measures each side, and how the autotuner it runs measures.
  struct CompareSettings {
    double duration_s = 5;
    double tune_measure_s = 2;
    double tune_budget_s = 20;
  };
  void SetCompareSettings(const CompareSettings& s) { compare_settings_ = s; }
  void SetTuningTimes(double settle_s, double measure_s) {
    tuning_times_.settle_s = settle_s;
    tuning_times_.measure_s = measure_s;
  }
  // Runs the current configuration and `other` (nullopt: what the pipescope autotuner
  // finds) for the same time and opens the Compare window; the live run stops first, so
  // that both sides have the machine. Returns the window (null: cancelled or failed).
  CompareWindow* CompareWith(std::optional<spec::PipelineSpec> other, const QString& other_name);
  CompareWindow* compare_window() const { return compare_window_.get(); }
  // Measures the current configuration at every point of a grid over `knobs` ("op.knob";
  // empty: every parallelism and buffer-size knob), `seconds` a point, with progress and
  // Cancel, and opens the Grid window with the chart `grid --plot` draws; the live run
  // stops first. Returns the window (null: cancelled or failed, said in a message box).
  // A grid of more than kGridPointsWithoutAsking points asks first (SetConfirmation).
  GridWindow* GridOfKnobs(const std::vector<std::string>& knobs, double seconds);
  static constexpr size_t kGridPointsWithoutAsking = 12;
  GridWindow* grid_window() const { return grid_window_.get(); }
  // On a PyTorch profiler trace: predicts the job at other DataLoader settings
  // (session::PredictWhatIf) and opens Compare with the trace and the prediction. Errors in
  // a message box (null then).
  CompareWindow* WhatIf(const session::WhatIfOptions& options);

  // Writes the shown trace, with its notes, to `path` (the run is stopped first).
  bool SaveTrace(const QString& path);
  // Writes the shown trace as Perfetto (.perfetto-trace, .pftrace) or Chrome JSON (.json,
  // .json.gz), by the extension (the run is stopped first).
  bool ExportTrace(const QString& path);
  // Pins a note to [t0, t1] (t0 == t1: one instant).
  void AddNote(int64_t t0, int64_t t1, const QString& text);
  void SetDarkTheme(bool dark);
  // Recomputes the docks from the model (the refresh timer does this while a run is live).
  void Refresh();

  TimelineWidget* timeline() const { return timeline_; }
  StatisticsPanel* statistics() const { return statistics_; }
  PipelinePanel* pipeline_panel() const { return pipeline_; }
  QString verdict_text() const;
  // The advice panel's text, and whether it is still trying changes in the simulator.
  QString advice_text() const;
  bool advising() const;
  QString status_text() const;
  QString range_text() const;  // what range the statistics and verdict are of
  const trace::RangeAnalysis& analysis() const { return analysis_; }
  session::LiveRun* live_run() const { return live_.get(); }

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void closeEvent(QCloseEvent* e) override;

 private:
  void BuildDocks();
  void BuildMenus();
  void BuildTuneMenu();
  void FitDocksForPresenter();
  // The lesson's text on the left, its pipeline on the right above the verdict.
  void ArrangeLessonDocks();
  void ShowLessonsDock();
  void RefreshTuning();
  void CompareWithSpecDialog();
  void WhatIfDialog();
  // The configuration Compare and the tuner start from: the live run's, else the spec's.
  std::optional<spec::PipelineSpec> CurrentConfiguration() const;
  void OpenDialog();
  void SaveDialog();
  void SaveSpecDialog();
  void ExportDialog();
  // Runs `write` with a progress dialog that can cancel it; a failure other than a cancel
  // is shown under `failure_title`. Returns whether it wrote.
  bool WriteWithProgress(
      const QString& label, const QString& failure_title,
      const std::function<engine::Status(const std::function<bool(double)>&)>& write);
  bool ConfirmChange(const QString& explanation);
  void RequestNote(int64_t t0, int64_t t1);
  void RememberRecent(const QString& path);
  void RefreshRecentMenu();
  bool OpenTrace(const QString& path);
  bool OpenSpec(const QString& path);
  bool OpenCode(const QString& path);
  // Runs `spec`, read from `path`, live: what opening a spec or code ends with.
  bool RunSpec(const spec::PipelineSpec& spec, const QString& path);
  void Show(std::shared_ptr<trace::Model> model, std::mutex* lock, const QString& title);
  void UpdateRunActions();
  void OnRunFinished();
  void OnSelection(int64_t t0, int64_t t1);
  bool ConfirmDiscardNotes();

  TimelineWidget* timeline_;
  StatisticsPanel* statistics_ = nullptr;
  PipelinePanel* pipeline_ = nullptr;
  NotesPanel* notes_ = nullptr;
  CodePanel* code_panel_ = nullptr;
  QDockWidget* code_dock_ = nullptr;
  std::optional<code::ImportedCode> code_;  // the .py the running pipeline was read from
  LessonsPanel* lessons_ = nullptr;
  QAction* presenter_action_ = nullptr;
  QAction* timeline_only_ = nullptr;
  TimelineFocus focus_{this};
  bool presenter_ = false;
  QFont normal_font_;
  QByteArray state_before_presenter_;  // dock layout to restore
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
  QAction* save_spec_ = nullptr;
  QAction* copy_code_ = nullptr;
  QAction* export_ = nullptr;
  QAction* dark_ = nullptr;
  QAction* tune_pipescope_ = nullptr;
  QAction* tune_tfdata_ = nullptr;
  QAction* stop_tuning_ = nullptr;
  QAction* periodic_ = nullptr;
  QAction* compare_tuned_ = nullptr;
  QAction* compare_spec_ = nullptr;
  QAction* grid_ = nullptr;
  QAction* whatif_ = nullptr;
  QLabel* tuning_label_ = nullptr;
  TuningChart* tuning_chart_ = nullptr;  // the tuner's trials, under tuning_label_
  AdvicePanel* advice_ = nullptr;

  std::shared_ptr<trace::Model> model_;
  std::mutex* model_lock_ = nullptr;  // the live run's lock while its model is shown
  std::unique_ptr<session::LiveRun> live_;
  spec::PipelineSpec spec_;  // the spec a live run was started from
  QString spec_path_;
  bool have_spec_ = false;
  QString title_;
  QString hosts_verdict_;  // several hosts open: each one's figures, the one to look at
  bool notes_unsaved_ = false;
  bool run_finish_handled_ = true;
  int64_t sel_t0_ = 0;
  int64_t sel_t1_ = 0;
  trace::RangeAnalysis analysis_;
  QTimer refresh_timer_;
  std::function<bool(const QString&)> confirm_;
  std::unique_ptr<session::LiveTuning> tuning_;  // reset before live_: it drives the run
  std::unique_ptr<CompareWindow> compare_window_;
  std::unique_ptr<GridWindow> grid_window_;
  CompareSettings compare_settings_;
  session::LiveTuning::Options tuning_times_;  // its settle and measure windows (defaults)
};

}  // namespace pipescope::ui
