#pragma once
// The live run behind the main window (the Run menu): the spec or .py it was started
// from, the engine running it, knob edits and op moves while it runs, and its end. It
// shows the run's model in the document, keeps the Pipeline dock's knobs and order in step
// with the run, and says when the window should refresh.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>

#include "app/code/code_import.h"
#include "app/session/live_run.h"
#include "engine/spec/pipeline_spec.pb.h"

class QAction;
class QMenu;
class QWidget;

namespace pipescope::ui {

class PipelinePanel;
class TraceDocument;

class RunController : public QObject {
  Q_OBJECT
 public:
  RunController(QWidget* window, TraceDocument* document, PipelinePanel* pipeline);
  ~RunController() override;

  // The Run menu; Save Pipeline Spec As to `file`, Copy as Code to `edit`.
  void BuildMenus(QMenu* run, QMenu* file, QMenu* edit);

  // Runs the spec at `path` live, or the pipeline a .py builds (import-code; code() then
  // holds it). Errors are shown in a message box.
  bool OpenSpec(const QString& path);
  bool OpenCode(const QString& path);
  // The .py the running pipeline was read from (null for a spec).
  const code::ImportedCode* code() const { return code_ ? &*code_ : nullptr; }
  // Something other than a pipeline is shown now: the run stops and its spec is forgotten.
  void Forget();

  bool StartRun();  // runs the last opened spec again
  void SetPaused(bool paused);
  void StopRun();
  // Stops the run and waits until its recording is complete (at most `timeout_ms`).
  bool StopRunAndWait(int timeout_ms = 10000);
  bool is_live() const { return live_ && !live_->finished(); }
  session::LiveRun* live_run() const { return live_.get(); }
  bool has_spec() const { return have_spec_; }
  const QString& spec_path() const { return spec_path_; }
  // The configuration Compare and the tuner start from: the live run's, else the spec's.
  std::optional<spec::PipelineSpec> CurrentConfiguration() const;

  // Rebuilds the live run from `after`: at once when the move rules say what reaches the
  // training step is kept, else only once the confirmation agrees. Returns whether it
  // was applied; the timeline gets a marker with `description`.
  bool ChangePipeline(const spec::PipelineSpec& after, const QString& description);
  // Runs the spec as `workers` data-parallel workers for `seconds` (workers_run.h), then
  // announces them with WorkersRan; false when cancelled or failed (said in a message box).
  bool RunWorkers(int workers, double seconds);
  // Runs `spec`, a piece of advice (`change` says which), in place of the pipeline shown.
  void RunAdvised(const spec::PipelineSpec& spec, const QString& change);
  // Writes the live run's current spec (order and knob values) as text.
  bool SaveSpec(const QString& path);
  // The running pipeline as code (Edit > Copy as Code): a pipeline opened from a .py is that
  // file with the current knobs written in; any other, code in its framework. Empty when
  // nothing runs a spec; `notes` gets what the code could not say.
  QString PipelineAsCode(QStringList* notes = nullptr) const;

  // Asked before what is shown is replaced by something that is not this run (the workers'
  // traces): false keeps it (unsaved notes a person keeps).
  void SetMayReplace(std::function<bool()> may_replace) { may_replace_ = std::move(may_replace); }

  // Asks a person to confirm what they may not have meant, given the sentence that says it;
  // default a message box. Tests answer for the person.
  void SetConfirmation(std::function<bool(const QString& explanation)> confirm) {
    confirm_ = std::move(confirm);
  }
  // Asks in a message box titled `title`: `explanation`, then `question`, answered by `go`
  // or Cancel (the default), unless SetConfirmation answers.
  bool Confirm(const QString& title, const QString& explanation, const QString& question,
               const QString& go);

  // Enables the Run menu's actions for the state of the run.
  void UpdateActions();

 signals:
  void Message(const QString& text, int timeout_ms);
  // The run is asked to stop (whatever drives it stops too), or is about to be discarded
  // (whatever holds on to it lets go).
  void Stopping();
  void Discarding();
  void Started();
  // The run ended and its recording is complete.
  void Finished();
  // Four times a second while the run goes.
  void RefreshDue();
  // A .py was read: code() holds it.
  void CodeOpened();
  // Run as Workers ran the spec as several workers: their traces merged, to be shown (the
  // spec stays, for Start).
  void WorkersRan(std::shared_ptr<trace::Model> model, const QString& title,
                  const QString& verdict);
  void ActionsChanged();

 private:
  // Runs `spec`, read from `path`, live: what opening a spec or code ends with.
  bool RunSpec(const spec::PipelineSpec& spec, const QString& path);
  // Stops the run for good and lets go of it (the document first).
  void Discard();
  void Tick();
  void OnRunFinished();
  void SaveSpecDialog();

  QWidget* window_;
  TraceDocument* document_;
  PipelinePanel* pipeline_;
  std::unique_ptr<session::LiveRun> live_;
  spec::PipelineSpec spec_;  // the spec a live run was started from
  QString spec_path_;
  bool have_spec_ = false;
  std::optional<code::ImportedCode> code_;
  bool finish_handled_ = true;
  QTimer refresh_timer_;
  std::function<bool(const QString&)> confirm_;
  std::function<bool()> may_replace_;
  QAction* start_ = nullptr;
  QAction* pause_ = nullptr;
  QAction* stop_ = nullptr;
  QAction* restart_ = nullptr;
  QAction* save_spec_ = nullptr;
  QAction* workers_ = nullptr;
};

}  // namespace pipescope::ui
