#include "ui/run_controller.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QThread>
#include <chrono>
#include <utility>

#include "app/code/code_emit.h"
#include "app/code/code_patch.h"
#include "app/session/workers.h"
#include "engine/spec/spec_loader.h"
#include "engine/tuning/move_rules.h"
#include "ui/panels/op_order_editor.h"
#include "ui/panels/pipeline_panel.h"
#include "ui/trace_document.h"
#include "ui/workers_run.h"

namespace pipescope::ui {
namespace {

QString Text(const std::string& s) { return QString::fromStdString(s); }

constexpr double kWorkersSeconds = 5;  // Run as Workers' run

}  // namespace

RunController::RunController(QWidget* window, TraceDocument* document, PipelinePanel* pipeline)
    : window_(window), document_(document), pipeline_(pipeline) {
  connect(pipeline_, &PipelinePanel::KnobEdited, this,
          [this](const QString& op, const QString& knob, qint64 value) {
            if (!live_) return;
            const auto s = live_->SetKnob(op.toStdString(), knob.toStdString(), value);
            if (!s.ok()) emit Message(Text(s.message()), 10000);
          });
  connect(pipeline_->order_editor(), &OpOrderEditor::ChangeRequested, this,
          [this](const spec::PipelineSpec& after, const QString& description) {
            ChangePipeline(after, description);
          });
  connect(&refresh_timer_, &QTimer::timeout, this, &RunController::Tick);
  refresh_timer_.setInterval(250);
}

RunController::~RunController() { Discard(); }

void RunController::BuildMenus(QMenu* run, QMenu* file, QMenu* edit) {
  start_ = run->addAction("&Start", QKeySequence(Qt::Key_F5), this, [this] { StartRun(); });
  pause_ = run->addAction("&Pause", QKeySequence(Qt::Key_F6), this,
                          [this](bool checked) { SetPaused(checked); });
  pause_->setCheckable(true);
  stop_ =
      run->addAction("S&top", QKeySequence(Qt::SHIFT | Qt::Key_F5), this, &RunController::StopRun);
  restart_ =
      run->addAction("&Restart", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5), this, [this] {
        StopRunAndWait();
        StartRun();
      });
  restart_->setToolTip("Run the spec again from its start, with the spec's knob values");
  workers_ =
      run->addAction("Run as &Workers...", QKeySequence(Qt::CTRL | Qt::Key_F5), this, [this] {
        QSettings settings;
        bool ok = false;
        const int workers = QInputDialog::getInt(
            window_, "Run as Workers",
            QString("Data-parallel workers of one job on this machine, each with its own "
                    "pipeline and each shard's index its number; run for %1 s:")
                .arg(kWorkersSeconds),
            settings.value("run/workers", 2).toInt(), 2, session::kMaxWorkers, 1, &ok);
        if (!ok) return;
        settings.setValue("run/workers", workers);
        RunWorkers(workers, kWorkersSeconds);
      });
  workers_->setToolTip(
      "The spec as several workers of one job (pipescope-cli run --workers N), shown as one "
      "trace with a lane group per worker");

  save_spec_ = file->addAction("Save Pipeline &Spec As...", this, &RunController::SaveSpecDialog);
  save_spec_->setToolTip("The running pipeline as a .pbtxt: its op order and knob values");

  QAction* copy_code = edit->addAction(
      "Copy as &Code", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this, [this] {
        QStringList notes;
        const QString text = PipelineAsCode(&notes);
        if (text.isEmpty()) return;
        QApplication::clipboard()->setText(text);
        emit Message(
            "Copied the pipeline as code" + (notes.isEmpty() ? QString() : ": " + notes.join("; ")),
            10000);
      });
  copy_code->setToolTip(
      "The running pipeline with its current knobs: the opened .py with them written in, or "
      "tf.data, DataLoader or Keras code");
  UpdateActions();
}

bool RunController::OpenSpec(const QString& path) {
  auto spec = engine::LoadSpecFile(path.toStdString());
  if (!spec.ok()) {
    QMessageBox::warning(window_, "Cannot run the pipeline", Text(spec.status().message()));
    return false;
  }
  code_.reset();
  return RunSpec(*spec, path);
}

bool RunController::OpenCode(const QString& path) {
  auto imported = code::ImportCodeFile(path.toStdString());
  if (!imported.ok()) {
    QMessageBox::warning(window_, "Cannot read a pipeline from the code",
                         Text(imported.status().message()));
    return false;
  }
  code_ = std::move(imported).value();
  emit CodeOpened();
  return RunSpec(code_->spec, path);
}

void RunController::Forget() {
  StopRunAndWait();
  Discard();
  have_spec_ = false;
  code_.reset();
  UpdateActions();
}

bool RunController::RunSpec(const spec::PipelineSpec& spec, const QString& path) {
  spec_ = spec;
  spec_path_ = path;
  have_spec_ = true;
  return StartRun();
}

void RunController::Discard() {
  emit Discarding();  // the tuner goes before the run it drives
  if (live_ && document_->recording() && document_->shared_model() == live_->model())
    document_->Close();  // readers let go of the run's lock before it goes
  refresh_timer_.stop();
  live_.reset();
}

bool RunController::StartRun() {
  if (!have_spec_) return false;
  StopRunAndWait();
  Discard();
  session::LiveRun::Options options;
  options.spec_path = spec_path_.toStdString();
  auto run = session::LiveRun::Start(spec_, options);
  if (!run.ok()) {
    QMessageBox::warning(window_, "Cannot run the pipeline", Text(run.status().message()));
    document_->Close();
    UpdateActions();
    return false;
  }
  live_ = std::move(run).value();
  finish_handled_ = false;
  document_->Open(live_->model(), &live_->model_mutex(), QFileInfo(spec_path_).fileName());
  pipeline_->ShowKnobs(live_->Knobs());
  pipeline_->ShowOrder(live_->CurrentSpec(), true);
  refresh_timer_.start();
  emit Message("Running " + QFileInfo(spec_path_).fileName() +
                   ": edit knobs in the Pipeline dock; Shift+F5 stops.",
               8000);
  UpdateActions();
  emit Started();
  return true;
}

void RunController::SetPaused(bool paused) {
  if (!is_live()) return;
  live_->SetPaused(paused);
  pause_->setChecked(paused);
  emit Message(
      paused ? "Paused: the consumer stops pulling; the pipeline fills its buffers." : "Resumed.",
      5000);
}

void RunController::StopRun() {
  emit Stopping();
  if (live_) live_->Stop();
}

bool RunController::StopRunAndWait(int timeout_ms) {
  if (!live_) return true;
  emit Discarding();  // a tuner would go on setting knobs of a run that is ending
  live_->Stop();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!live_->finished() && std::chrono::steady_clock::now() < deadline) QThread::msleep(5);
  if (live_->finished()) OnRunFinished();
  return live_->finished();
}

void RunController::Tick() {
  if (!live_) return;
  if (live_->finished()) {
    OnRunFinished();
    return;
  }
  pipeline_->ShowKnobs(live_->Knobs());
  emit RefreshDue();
}

void RunController::OnRunFinished() {
  if (finish_handled_) return;
  finish_handled_ = true;
  refresh_timer_.stop();
  pause_->setChecked(false);
  {
    std::lock_guard<std::mutex> lock(live_->model_mutex());
    pipeline_->ShowTrace(*live_->model());
  }
  pipeline_->ShowOrder({}, false);
  UpdateActions();
  emit Finished();
  const engine::Status outcome = live_->outcome();
  if (!outcome.ok()) {
    emit Message("The run failed: " + Text(outcome.message()), 0);
    QMessageBox::warning(window_, "The pipeline failed", Text(outcome.message()));
  } else {
    const auto summary = live_->summary();
    emit Message(QString("Run finished%1: %2 steps in %3 s.")
                     .arg(summary.end_of_data ? " (end of data)" : "")
                     .arg(summary.steps)
                     .arg(summary.duration_s, 0, 'f', 1),
                 10000);
  }
}

void RunController::UpdateActions() {
  if (start_ == nullptr) return;
  const bool live = is_live();
  start_->setEnabled(have_spec_ && !live);
  pause_->setEnabled(live);
  stop_->setEnabled(live);
  restart_->setEnabled(have_spec_);
  workers_->setEnabled(have_spec_);
  save_spec_->setEnabled(live);
  emit ActionsChanged();
}

std::optional<spec::PipelineSpec> RunController::CurrentConfiguration() const {
  if (is_live()) {
    spec::PipelineSpec spec = live_->CurrentSpec();
    if (spec.ops_size() > 0 || spec.has_source()) return spec;
  }
  if (have_spec_) return spec_;
  return std::nullopt;
}

bool RunController::ChangePipeline(const spec::PipelineSpec& after, const QString& description) {
  if (!is_live()) return false;
  const spec::PipelineSpec before = live_->CurrentSpec();
  const engine::MoveAssessment assessment = engine::AssessChange(before, after);
  const bool confirmed = assessment.keeps_output ||
                         Confirm("This changes what reaches the training step",
                                 Text(assessment.explanation), "Apply the change anyway?", "Apply");
  if (!confirmed) {
    emit Message("Not applied: " + description, 8000);
    pipeline_->ShowOrder(before, true);  // undo what the list shows
    return false;
  }
  const engine::Status status = live_->Reorder(after, description.toStdString());
  if (!status.ok()) {
    pipeline_->ShowOrder(before, true);
    QMessageBox::warning(window_, "Cannot change the pipeline", Text(status.message()));
    return false;
  }
  pipeline_->ShowOrder(live_->CurrentSpec(), true);
  pipeline_->ShowKnobs(live_->Knobs());
  emit Message("Rebuilt: " + description +
                   (assessment.keeps_output ? " (keeps the output)" : " (changes the output)") +
                   ". The pipeline restarts from its source.",
               10000);
  return true;
}

bool RunController::RunWorkers(int workers, double seconds) {
  if (!have_spec_ || (may_replace_ && !may_replace_())) return false;
  const spec::PipelineSpec spec = CurrentConfiguration().value_or(spec_);
  StopRunAndWait();
  std::optional<WorkersView> view = RunAsWorkers(window_, spec, workers, seconds);
  if (!view) return false;
  emit Message(QString("%1 workers ran for %2 s: %3 (Start runs the spec as one pipeline)")
                   .arg(workers)
                   .arg(seconds)
                   .arg(view->in_all),
               15000);
  emit WorkersRan(std::move(view->model), view->title, view->verdict);
  return true;
}

void RunController::RunAdvised(const spec::PipelineSpec& spec, const QString& change) {
  if (spec_path_.isEmpty() && document_->is_open())
    spec_path_ = Text(document_->model()->run_info().spec_path);
  spec_ = spec;
  have_spec_ = true;
  if (StartRun()) emit Message("Running with the advised change: " + change, 8000);
}

bool RunController::Confirm(const QString& title, const QString& explanation,
                            const QString& question, const QString& go) {
  if (confirm_) return confirm_(explanation);
  QMessageBox box(QMessageBox::Question, title, explanation, QMessageBox::NoButton, window_);
  box.setInformativeText(question);
  QPushButton* yes = box.addButton(go, QMessageBox::AcceptRole);
  box.addButton(QMessageBox::Cancel);
  box.setDefaultButton(QMessageBox::Cancel);
  box.exec();
  return box.clickedButton() == yes;
}

bool RunController::SaveSpec(const QString& path) {
  if (!is_live()) return false;
  const auto written =
      engine::WriteSpecFile(live_->CurrentSpec(), path.toStdString(),
                            "Saved by Pipescope from a live run of " + spec_path_.toStdString());
  if (!written.ok()) {
    QMessageBox::warning(window_, "Cannot save the spec", Text(written.message()));
    return false;
  }
  emit Message("Saved the pipeline spec to " + path, 5000);
  return true;
}

void RunController::SaveSpecDialog() {
  if (!is_live()) return;
  QSettings settings;
  QString path = QFileDialog::getSaveFileName(window_, "Save the pipeline spec as",
                                              settings.value("files/spec_dir").toString(),
                                              "Pipeline specs (*.pbtxt)");
  if (path.isEmpty()) return;
  if (!path.endsWith(".pbtxt")) path += ".pbtxt";
  settings.setValue("files/spec_dir", QFileInfo(path).absolutePath());
  SaveSpec(path);
}

QString RunController::PipelineAsCode(QStringList* notes) const {
  if (!have_spec_) return {};
  const spec::PipelineSpec current = live_ ? live_->CurrentSpec() : spec_;
  auto written = code_ ? code::PatchCode(*code_, current) : code::EmitCode(current, "auto");
  if (!written.ok()) {
    if (notes) notes->append(Text(written.status().message()));
    return {};
  }
  if (notes) {
    for (const auto& n : written->notes) notes->append(Text(n));
  }
  return Text(written->text);
}

}  // namespace pipescope::ui
