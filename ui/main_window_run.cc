// The main window's live run (Run menu) and the refresh of its docks.
#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QThread>
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "app/code/code_emit.h"
#include "app/code/code_patch.h"
#include "app/session/advising.h"
#include "engine/core/duration.h"
#include "engine/spec/spec_loader.h"
#include "engine/tuning/move_rules.h"
#include "instrumentation/trace/import/framework_report.h"
#include "instrumentation/trace/span_statistics.h"
#include "ui/main_window.h"
#include "ui/model_lock.h"
#include "ui/panels/advice_panel.h"
#include "ui/panels/code_panel.h"
#include "ui/panels/pipeline_panel.h"
#include "ui/panels/statistics_panel.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

// "\n\nThe device idled 1.05 s in 245 gaps (longest 9.0 ms): input: decode 0.95 s, ..."
QString DeviceGapsText(const trace::DeviceGapSummary& g) {
  if (!g.measured || g.count == 0) return {};
  std::vector<std::pair<int64_t, std::string>> causes;
  for (const auto& [cause, ns] : g.by_cause_ns) causes.emplace_back(ns, cause);
  std::sort(causes.rbegin(), causes.rend());
  std::string text = "\n\nThe device idled " + engine::FormatDuration(g.total_ns) + " in " +
                     std::to_string(g.count) + (g.count == 1 ? " gap" : " gaps") + " (longest " +
                     engine::FormatDuration(g.longest_ns) + ")";
  for (size_t i = 0; i < causes.size() && i < 3; ++i)
    text +=
        (i == 0 ? ": " : "; ") + causes[i].second + " " + engine::FormatDuration(causes[i].first);
  return QString::fromStdString(text + ".");
}

}  // namespace
namespace {

constexpr int64_t kLiveWindowNs = 2'000'000'000;  // live statistics cover the newest 2 s

QString Time(int64_t ns) { return QString::fromStdString(FormatDuration(ns)); }

}  // namespace

bool MainWindow::OpenSpec(const QString& path) {
  auto spec = engine::LoadSpecFile(path.toStdString());
  if (!spec.ok()) {
    QMessageBox::warning(this, "Cannot run the pipeline",
                         QString::fromStdString(spec.status().message()));
    return false;
  }
  return RunSpec(*spec, path);
}

bool MainWindow::RunSpec(const spec::PipelineSpec& spec, const QString& path) {
  spec_ = spec;
  spec_path_ = path;
  have_spec_ = true;
  return StartRun();
}

bool MainWindow::OpenCode(const QString& path) {
  auto imported = code::ImportCodeFile(path.toStdString());
  if (!imported.ok()) {
    QMessageBox::warning(this, "Cannot read a pipeline from the code",
                         QString::fromStdString(imported.status().message()));
    return false;
  }
  code_ = std::move(imported).value();
  code_panel_->ShowCode(QFileInfo(path).fileName(), QString::fromStdString(code_->source_text),
                        code_->notes);
  code_dock_->show();
  code_dock_->raise();
  // Room to read the code: the left column wider, the source as tall as the pipeline.
  if (QDockWidget* pipeline = findChild<QDockWidget*>("pipeline")) {
    resizeDocks({pipeline, code_dock_}, {height() / 2, height() / 2}, Qt::Vertical);
    resizeDocks({code_dock_}, {std::max(420, width() / 4)}, Qt::Horizontal);
  }
  return RunSpec(code_->spec, path);
}

QString MainWindow::PipelineAsCode(QStringList* notes) const {
  if (!have_spec_) return {};
  const spec::PipelineSpec current = live_ ? live_->CurrentSpec() : spec_;
  auto written = code_ ? code::PatchCode(*code_, current) : code::EmitCode(current, "auto");
  if (!written.ok()) {
    if (notes) notes->append(QString::fromStdString(written.status().message()));
    return {};
  }
  if (notes) {
    for (const auto& n : written->notes) notes->append(QString::fromStdString(n));
  }
  return QString::fromStdString(written->text);
}

bool MainWindow::StartRun() {
  if (!have_spec_) return false;
  StopRunAndWait();
  timeline_->SetModel(nullptr);  // it reads under the old run's lock
  tuning_.reset();
  live_.reset();
  session::LiveRun::Options options;
  options.spec_path = spec_path_.toStdString();
  auto run = session::LiveRun::Start(spec_, options);
  if (!run.ok()) {
    QMessageBox::warning(this, "Cannot run the pipeline",
                         QString::fromStdString(run.status().message()));
    model_.reset();
    UpdateRunActions();
    return false;
  }
  live_ = std::move(run).value();
  run_finish_handled_ = false;
  Show(live_->model(), &live_->model_mutex(), QFileInfo(spec_path_).fileName());
  pipeline_->ShowKnobs(live_->Knobs());
  pipeline_->ShowOrder(live_->CurrentSpec(), true);
  refresh_timer_.start();
  statusBar()->showMessage("Running " + QFileInfo(spec_path_).fileName() +
                               ": edit knobs in the Pipeline dock; Shift+F5 stops.",
                           8000);
  UpdateRunActions();
  return true;
}

void MainWindow::SetPaused(bool paused) {
  if (!run_is_live()) return;
  live_->SetPaused(paused);
  pause_->setChecked(paused);
  statusBar()->showMessage(
      paused ? "Paused: the consumer stops pulling; the pipeline fills its buffers." : "Resumed.",
      5000);
}

void MainWindow::StopRun() {
  if (tuning_) tuning_->Stop();
  if (live_) live_->Stop();
}

bool MainWindow::StopRunAndWait(int timeout_ms) {
  if (!live_) return true;
  tuning_.reset();  // it would go on setting knobs of a run that is ending
  live_->Stop();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!live_->finished() && std::chrono::steady_clock::now() < deadline) QThread::msleep(5);
  if (live_->finished()) OnRunFinished();
  return live_->finished();
}

void MainWindow::OnRunFinished() {
  if (run_finish_handled_) return;
  run_finish_handled_ = true;
  refresh_timer_.stop();
  timeline_->SetLive(false);
  pause_->setChecked(false);
  {
    std::lock_guard<std::mutex> lock(live_->model_mutex());
    pipeline_->ShowTrace(*model_);
  }
  pipeline_->ShowOrder({}, false);
  if (live_->outcome().ok()) advice_->Start(model_);
  Refresh();
  UpdateRunActions();
  const engine::Status outcome = live_->outcome();
  if (!outcome.ok()) {
    statusBar()->showMessage("The run failed: " + QString::fromStdString(outcome.message()));
    QMessageBox::warning(this, "The pipeline failed", QString::fromStdString(outcome.message()));
  } else {
    const auto summary = live_->summary();
    statusBar()->showMessage(QString("Run finished%1: %2 steps in %3 s.")
                                 .arg(summary.end_of_data ? " (end of data)" : "")
                                 .arg(summary.steps)
                                 .arg(summary.duration_s, 0, 'f', 1),
                             10000);
  }
}

void MainWindow::UpdateRunActions() {
  const bool live = run_is_live();
  start_->setEnabled(have_spec_ && !live);
  pause_->setEnabled(live);
  stop_->setEnabled(live);
  restart_->setEnabled(have_spec_);
  save_spec_->setEnabled(live);
  compare_tuned_->setEnabled(have_spec_);
  compare_spec_->setEnabled(have_spec_);
  grid_->setEnabled(have_spec_);
  whatif_->setEnabled(!live && model_ && model_->run_info().imported_from == "pytorch");
  RefreshTuning();
  save_->setEnabled(model_ != nullptr);
  export_->setEnabled(model_ != nullptr);
}

bool MainWindow::ChangePipeline(const spec::PipelineSpec& after, const QString& description) {
  if (!run_is_live()) return false;
  const spec::PipelineSpec before = live_->CurrentSpec();
  const engine::MoveAssessment assessment = engine::AssessChange(before, after);
  const QString explanation = QString::fromStdString(assessment.explanation);
  const bool confirmed =
      assessment.keeps_output || (confirm_ ? confirm_(explanation) : ConfirmChange(explanation));
  if (!confirmed) {
    statusBar()->showMessage("Not applied: " + description, 8000);
    pipeline_->ShowOrder(before, true);  // undo what the list shows
    return false;
  }
  const engine::Status status = live_->Reorder(after, description.toStdString());
  if (!status.ok()) {
    pipeline_->ShowOrder(before, true);
    QMessageBox::warning(this, "Cannot change the pipeline",
                         QString::fromStdString(status.message()));
    return false;
  }
  pipeline_->ShowOrder(live_->CurrentSpec(), true);
  pipeline_->ShowKnobs(live_->Knobs());
  statusBar()->showMessage(
      "Rebuilt: " + description +
          (assessment.keeps_output ? " (keeps the output)" : " (changes the output)") +
          ". The pipeline restarts from its source.",
      10000);
  return true;
}

void MainWindow::RunAdvised(const spec::PipelineSpec& spec, const QString& change) {
  if (spec_path_.isEmpty() && model_) {
    spec_path_ = QString::fromStdString(model_->run_info().spec_path);
  }
  spec_ = spec;
  have_spec_ = true;
  if (StartRun()) statusBar()->showMessage("Running with the advised change: " + change, 8000);
}

bool MainWindow::ConfirmChange(const QString& explanation) {
  QMessageBox box(QMessageBox::Question, "This changes what reaches the training step", explanation,
                  QMessageBox::NoButton, this);
  box.setInformativeText("Apply the change anyway?");
  QPushButton* apply = box.addButton("Apply", QMessageBox::AcceptRole);
  box.addButton(QMessageBox::Cancel);
  box.setDefaultButton(QMessageBox::Cancel);
  box.exec();
  return box.clickedButton() == apply;
}

bool MainWindow::SaveSpec(const QString& path) {
  if (!run_is_live()) return false;
  const auto written =
      engine::WriteSpecFile(live_->CurrentSpec(), path.toStdString(),
                            "Saved by Pipescope from a live run of " + spec_path_.toStdString());
  if (!written.ok()) {
    QMessageBox::warning(this, "Cannot save the spec", QString::fromStdString(written.message()));
    return false;
  }
  statusBar()->showMessage("Saved the pipeline spec to " + path, 5000);
  return true;
}

void MainWindow::SaveSpecDialog() {
  if (!run_is_live()) return;
  QSettings settings;
  QString path = QFileDialog::getSaveFileName(this, "Save the pipeline spec as",
                                              settings.value("files/spec_dir").toString(),
                                              "Pipeline specs (*.pbtxt)");
  if (path.isEmpty()) return;
  if (!path.endsWith(".pbtxt")) path += ".pbtxt";
  settings.setValue("files/spec_dir", QFileInfo(path).absolutePath());
  SaveSpec(path);
}

void MainWindow::OnSelection(int64_t t0, int64_t t1) {
  sel_t0_ = t0;
  sel_t1_ = t1;
  Refresh();
}

void MainWindow::Refresh() {
  if (!model_) return;
  if (live_ && live_->finished() && !run_finish_handled_) {
    OnRunFinished();  // refreshes again, as a finished run
    return;
  }
  QString range;
  {
    const auto guard = LockModel(model_lock_);
    int64_t t0 = 0, t1 = 0;
    if (sel_t1_ > sel_t0_) {
      t0 = sel_t0_;
      t1 = sel_t1_;
      range = QString("Selection: %1 to %2 (%3). Esc clears it.")
                  .arg(Time(t0), Time(t1), Time(t1 - t0));
    } else if (run_is_live()) {
      t1 = model_->duration_ns();
      t0 = std::max<int64_t>(0, t1 - kLiveWindowNs);
      range = QString("Live: the newest %1 (select a range with Shift+drag)").arg(Time(t1 - t0));
      if (t1 <= 0) t1 = t0 = 0;
    }
    if (sel_t1_ <= sel_t0_ && !run_is_live() && model_->run_info().imported_from.empty()) {
      // A finished run or a saved trace of Pipescope's own: after its first step, as the
      // CLI grades it.
      analysis_ = trace::AnalyzeSteady(*model_);
      range = analysis_.startup_ns > 0
                  ? QString(
                        "After the first step: %1 of start-up left out (select a range "
                        "with Shift+drag)")
                        .arg(Time(analysis_.startup_ns))
                  : QString("Whole trace (select a range with Shift+drag)");
    } else {
      analysis_ = trace::Analyze(*model_, t0, t1);
    }
    // A profiler's trace: its spans by name, not ops.
    const std::string& from = model_->run_info().imported_from;
    if (!from.empty() && from != "hosts" && from != "tensorflow")
      statistics_->ShowSpanStatistics(trace::SummarizeSpans(*model_, t0, t1));
    else
      statistics_->ShowAnalysis(analysis_);
  }
  range_label_->setText(range);
  // Pipescope's own runs: an imported trace's verdict is its framework's (below), and its
  // "ops" are processes. SetBottleneck takes the model's lock itself.
  timeline_->SetBottleneck(model_->run_info().imported_from.empty() ? analysis_.verdict.bottleneck
                                                                    : std::string());
  if (model_->run_info().imported_from == "hosts") {
    verdict_->setText(hosts_verdict_);
    status_->setText(
        QString("%1 on one clock").arg(QString::fromStdString(model_->run_info().pipeline_name)));
    return;
  }
  if (!model_->run_info().imported_from.empty()) {
    // An imported profiler trace: its framework's figures and verdict (steps, DataLoader or
    // tf.data wait, device activity).
    const auto summary =
        trace::SummarizeFramework(*model_, sel_t0_, sel_t1_ > sel_t0_ ? sel_t1_ : 0);
    verdict_->setText(QString::fromStdString(summary.verdict) +
                      DeviceGapsText(summary.device_gaps));
    status_->setText(
        QString::asprintf("imported %s trace   %lld steps   input wait %.0f%%   device busy %.0f%%",
                          summary.framework.c_str(), static_cast<long long>(summary.steps),
                          100 * summary.input_wait_fraction, 100 * summary.device_busy_fraction));
    return;
  }
  // The advice is for the whole of a finished run: its first piece is the suggestion.
  if (const engine::AdvisorResult* advice = advice_->advice();
      advice && sel_t1_ <= sel_t0_ && !run_is_live()) {
    session::ApplyAdvice(*advice, analysis_.verdict);
  }
  verdict_->setText(QString::fromStdString(analysis_.verdict.text) +
                    DeviceGapsText(analysis_.device_gaps));
  // A simulated trace says so, and on which cost model: its figures are virtual time.
  const std::string simulated = model_->run_info().simulated
                                    ? "SIMULATED (" + model_->run_info().cost_model + " costs)   "
                                    : std::string();
  status_->setText(QString::asprintf("%s%s%.1f steps/s   input wait %.0f%%   device busy %.0f%%",
                                     simulated.c_str(), live_ && live_->paused() ? "PAUSED   " : "",
                                     analysis_.steps_per_s, 100 * analysis_.input_wait_fraction,
                                     100 * analysis_.device_busy_fraction));
  if (run_is_live()) pipeline_->ShowKnobs(live_->Knobs());
  RefreshTuning();
}

}  // namespace pipescope::ui
