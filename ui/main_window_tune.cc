// The main window's Tune menu: autotuners on the live run, Compare and the grid of knobs.
#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>

#include "app/session/comparison.h"
#include "app/session/grid_search.h"
#include "app/session/whatif_comparison.h"
#include "engine/spec/spec_loader.h"
#include "engine/tuning/pipescope_tuner.h"
#include "instrumentation/trace/rate_interval.h"
#include "ui/compare/compare_window.h"
#include "ui/compare/grid_window.h"
#include "ui/compare/whatif_dialog.h"
#include "ui/main_window.h"
#include "ui/modal_progress.h"
#include "ui/panels/pipeline_panel.h"
#include "ui/panels/tuning_chart.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

QString Text(const std::string& s) { return QString::fromStdString(s); }

// "decode.num_parallel_calls 1 -> 2, prefetch.buffer_size 2 -> 4" (changed knobs only).
QString KnobMoves(const engine::TunerResult& r) {
  QStringList moves;
  for (const auto& k : r.knobs) {
    if (k.before != k.after)
      moves << QString("%1 %2 -> %3").arg(Text(k.name)).arg(k.before).arg(k.after);
  }
  return moves.isEmpty() ? QString("no knob changed") : moves.join(", ");
}

bool AskToMeasure(const QString& question) {
  QMessageBox box(QMessageBox::Question, "Grid of Knobs", question, QMessageBox::NoButton,
                  QApplication::activeWindow());
  QPushButton* go = box.addButton("Measure Every Point", QMessageBox::AcceptRole);
  box.addButton(QMessageBox::Cancel);
  box.setDefaultButton(go);
  box.exec();
  return box.clickedButton() == go;
}

}  // namespace

void MainWindow::BuildTuneMenu() {
  QMenu* tune = menuBar()->addMenu("&Tune");
  tune_pipescope_ =
      tune->addAction("Autotune Live with &Pipescope", QKeySequence(Qt::CTRL | Qt::Key_T), this,
                      [this] { StartTuning("pipescope"); });
  tune_pipescope_->setToolTip(
      "Measures each op from the trace, gives cores to the slowest, sizes the prefetch, "
      "verifies, repeats until a round gains under 2%");
  tune_tfdata_ = tune->addAction("Autotune Live with &tf.data's Model",
                                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T), this,
                                 [this] { StartTuning("tfdata"); });
  tune_tfdata_->setToolTip("tf.data's AUTOTUNE: its performance model and hill climb");
  periodic_ = tune->addAction("Re-tune &Periodically", this,
                              [](bool on) { QSettings().setValue("tuning/periodic", on); });
  periodic_->setCheckable(true);
  periodic_->setChecked(QSettings().value("tuning/periodic", false).toBool());
  periodic_->setToolTip("Tune again after 10 s, then 20 s, 40 s... (as tf.data re-optimises)");
  stop_tuning_ = tune->addAction("&Stop Tuning", QKeySequence(Qt::CTRL | Qt::Key_Period), this,
                                 &MainWindow::StopTuning);
  tune->addSeparator();
  compare_tuned_ = tune->addAction("&Compare with Autotuned", QKeySequence(Qt::CTRL | Qt::Key_K),
                                   this, [this] { CompareWith(std::nullopt, "autotuned"); });
  compare_tuned_->setToolTip(
      "Runs your configuration and the autotuned one for the same time, side by side");
  compare_spec_ =
      tune->addAction("Compare with a Saved &Spec...", this, &MainWindow::CompareWithSpecDialog);
  grid_ = tune->addAction("&Grid of Knobs", QKeySequence(Qt::CTRL | Qt::Key_G), this,
                          [this] { GridOfKnobs({}, 1.0); });
  grid_->setToolTip(
      "Measures every combination of the parallelism and buffer sizes for 1 s each: steps/s "
      "against parallelism, the best, and the points tied with it");
  tune->addSeparator();
  whatif_ = tune->addAction("&What If... (PyTorch trace)", QKeySequence(Qt::CTRL | Qt::Key_I), this,
                            &MainWindow::WhatIfDialog);
  whatif_->setToolTip(
      "Predicts what this PyTorch job would do with other DataLoader settings, beside the trace");
}

void MainWindow::WhatIfDialog() {
  if (!model_) return;
  auto job = trace::ReadLoaderJob(*model_);
  if (!job.ok()) {
    QMessageBox::warning(this, "What If", Text(job.status().message()));
    return;
  }
  ui::WhatIfDialog dialog(*job, this);
  if (dialog.exec() != QDialog::Accepted) return;
  WhatIf(dialog.options());
}

CompareWindow* MainWindow::WhatIf(const session::WhatIfOptions& options) {
  if (!model_ || run_is_live()) return nullptr;
  auto job = trace::ReadLoaderJob(*model_);
  auto prediction = job.ok() ? session::PredictWhatIf(*job, options)
                             : engine::Result<session::WhatIfPrediction>(job.status());
  if (!prediction.ok()) {
    QMessageBox::warning(this, "What If", Text(prediction.status().message()));
    return nullptr;
  }
  compare_window_ = std::make_unique<CompareWindow>(session::WhatIfComparison(model_, *prediction),
                                                    dark_->isChecked());
  compare_window_->setWindowTitle("What If: " + title_ + " - Pipescope");
  compare_window_->show();
  statusBar()->showMessage(Text(compare_window_->comparison().verdict), 10000);
  return compare_window_.get();
}

std::optional<spec::PipelineSpec> MainWindow::CurrentConfiguration() const {
  if (run_is_live()) {
    spec::PipelineSpec spec = live_->CurrentSpec();
    if (spec.ops_size() > 0 || spec.has_source()) return spec;
  }
  if (have_spec_) return spec_;
  return std::nullopt;
}

bool MainWindow::StartTuning(const QString& algorithm) {
  if (!run_is_live()) {
    statusBar()->showMessage("Autotuning works on a live run: open a pipeline spec first.", 8000);
    return false;
  }
  tuning_.reset();  // a previous tuning, finished or not
  session::LiveTuning::Options options;
  options.algorithm = algorithm.toStdString();
  options.periodic = periodic_->isChecked();
  options.settle_s = tuning_times_.settle_s;
  options.measure_s = tuning_times_.measure_s;
  options.tuner.ram_bytes = session::DefaultRamBudgetBytes();
  auto tuning = session::LiveTuning::Start(*live_, options);
  if (!tuning.ok()) {
    QMessageBox::warning(this, "Cannot autotune", Text(tuning.status().message()));
    return false;
  }
  tuning_ = std::move(tuning).value();
  statusBar()->showMessage("Autotuning with " + algorithm +
                               ": its knob moves are marked on the timeline. Ctrl+. stops it.",
                           8000);
  RefreshTuning();
  UpdateRunActions();
  return true;
}

void MainWindow::StopTuning() {
  if (tuning_) tuning_->Stop();
  RefreshTuning();
}

void MainWindow::RefreshTuning() {
  const bool tuning = tuning_ && !tuning_->progress().finished;
  stop_tuning_->setEnabled(tuning);
  tune_pipescope_->setEnabled(run_is_live() && !tuning);
  tune_tfdata_->setEnabled(run_is_live() && !tuning);
  if (!tuning_) {
    tuning_label_->hide();
    tuning_chart_->hide();
    return;
  }
  const auto progress = tuning_->progress();
  if (progress.trials.size() != tuning_chart_->trials().size()) {
    tuning_chart_->SetTrials(progress.trials);
  }
  tuning_chart_->setVisible(!progress.trials.empty());
  const QString who = Text(tuning_->options().algorithm);
  QString text;
  if (progress.last) {
    text = QString("Autotuned (%1): %2 -> %3 steps/s: %4.")
               .arg(who)
               .arg(progress.last->steps_per_s_before, 0, 'f', 1)
               .arg(progress.last->steps_per_s_after, 0, 'f', 1)
               .arg(KnobMoves(*progress.last));
  }
  if (!progress.finished) {
    const QString now = progress.log.empty() ? QString("starting") : Text(progress.log.back());
    text += (text.isEmpty() ? "" : " ") + QString("Autotuning (%1): %2").arg(who, now);
  } else if (!progress.outcome.ok()) {
    text += (text.isEmpty() ? "" : " ") +
            QString("Autotuning stopped: %1").arg(Text(progress.outcome.message()));
  }
  tuning_label_->setText(text);
  tuning_label_->show();
}

QString MainWindow::tuning_text() const {
  return tuning_label_->isVisibleTo(tuning_label_->parentWidget()) ? tuning_label_->text()
                                                                   : QString();
}

void MainWindow::CompareWithSpecDialog() {
  QSettings settings;
  const QString path = QFileDialog::getOpenFileName(this, "Compare with a pipeline spec",
                                                    settings.value("files/spec_dir").toString(),
                                                    "Pipeline specs (*.pbtxt)");
  if (path.isEmpty()) return;
  settings.setValue("files/spec_dir", QFileInfo(path).absolutePath());
  auto spec = engine::LoadSpecFile(path.toStdString());
  if (!spec.ok()) {
    QMessageBox::warning(this, "Cannot compare", Text(spec.status().message()));
    return;
  }
  CompareWith(*spec, QFileInfo(path).completeBaseName());
}

CompareWindow* MainWindow::CompareWith(std::optional<spec::PipelineSpec> other,
                                       const QString& other_name) {
  const std::optional<spec::PipelineSpec> mine = CurrentConfiguration();
  if (!mine) {
    QMessageBox::information(this, "Compare", "Open a pipeline spec first: Compare runs it.");
    return nullptr;
  }
  StopRunAndWait();  // both sides are measured with the machine to themselves
  const CompareSettings settings = compare_settings_;
  session::MeasurementCanceller canceller;
  std::mutex stage_mu;
  std::string stage = other ? "starting" : "autotuning your configuration";
  auto set_stage = [&](const std::string& s) {
    std::lock_guard lock(stage_mu);
    stage = s;
  };
  auto work = std::async(std::launch::async, [&]() -> engine::Result<session::Comparison> {
    spec::PipelineSpec b = other ? *other : spec::PipelineSpec();
    if (!other) {
      const engine::Measurer measure =
          session::RecordedMeasurer(settings.tune_measure_s, &canceller, [&](double steps_per_s) {
            set_stage("autotuning: measured " + std::to_string(static_cast<int>(steps_per_s)) +
                      " steps/s");
          });
      engine::TunerOptions options;
      options.budget_s = settings.tune_budget_s;
      ASSIGN_OR_RETURN(auto tuned, engine::TunePipescope(*mine, measure, options));
      b = tuned.tuned;
    }
    return session::CompareSpecs(*mine, b, settings.duration_s, "yours", other_name.toStdString(),
                                 &canceller, set_stage);
  });
  ModalProgress progress(this, "Compare", "Comparing...", 0, 0);
  auto result = progress.Await(
      work,
      [&](QProgressDialog& dialog) {
        std::lock_guard lock(stage_mu);
        dialog.setLabelText(Text(stage) + "...");
      },
      [&] { canceller.Cancel(); });
  if (!result.ok()) {
    if (result.status().code() != engine::StatusCode::kCancelled)
      QMessageBox::warning(this, "Cannot compare", Text(result.status().message()));
    return nullptr;
  }
  compare_window_ = std::make_unique<CompareWindow>(std::move(result).value(), dark_->isChecked());
  compare_window_->show();
  statusBar()->showMessage(compare_window_->verdict_text(), 15000);
  return compare_window_.get();
}

GridWindow* MainWindow::GridOfKnobs(const std::vector<std::string>& knobs, double seconds) {
  const std::optional<spec::PipelineSpec> mine = CurrentConfiguration();
  if (!mine) {
    QMessageBox::information(this, "Grid of Knobs",
                             "Open a pipeline spec first: the grid runs it at every point.");
    return nullptr;
  }
  const std::string source = spec_path_.isEmpty() ? std::string("the pipeline")
                                                  : QFileInfo(spec_path_).fileName().toStdString();
  auto plan = session::PlanGrid(*mine, knobs, source);
  if (!plan.ok()) {
    QMessageBox::warning(this, "Grid of Knobs", Text(plan.status().message()));
    return nullptr;
  }
  const size_t total = plan->points();
  if (total > kGridPointsWithoutAsking) {
    const QString question =
        QString("The grid has %1 points (%2) of %3 s each: about %4 s, the live run stopped.")
            .arg(total)
            .arg(Text([&] {
              std::string axes;
              for (const auto& a : plan->axes)
                axes +=
                    (axes.empty() ? "" : " x ") + std::to_string(a.values.size()) + " " + a.knob;
              return axes;
            }()))
            .arg(seconds)
            .arg(static_cast<double>(total) * seconds, 0, 'f', 0);
    if (!(confirm_ ? confirm_(question) : AskToMeasure(question))) return nullptr;
  }
  StopRunAndWait();  // every point is measured with the machine to itself
  std::atomic<bool> cancelled{false};
  std::mutex stage_mu;
  size_t done = 0;
  std::string stage = "point 1/" + std::to_string(total);
  auto work = std::async(std::launch::async, [&] {
    return session::RunGrid(*plan, seconds,
                            [&](size_t p, size_t n, const session::GridPoint& point) {
                              std::lock_guard lock(stage_mu);
                              done = p + 1;
                              stage = "point " + std::to_string(p + 1) + "/" + std::to_string(n) +
                                      ": " + point.Label(plan->axes) + ": " +
                                      trace::StepRateText({point.steps_per_s, point.half_width});
                              return !cancelled.load();
                            });
  });
  ModalProgress progress(this, "Grid of Knobs", "Measuring the grid...", static_cast<int>(total),
                         0);
  auto result = progress.Await(
      work,
      [&](QProgressDialog& dialog) {
        std::lock_guard lock(stage_mu);
        dialog.setLabelText(Text(stage));
        dialog.setValue(static_cast<int>(done));
      },
      [&] { cancelled.store(true); });
  if (!result.ok()) {
    if (result.status().code() != engine::StatusCode::kCancelled)
      QMessageBox::warning(this, "Grid of Knobs", Text(result.status().message()));
    return nullptr;
  }
  char per_point[32];
  std::snprintf(per_point, sizeof per_point, "%g s a point", seconds);
  const std::string title =
      "steps/s by " + result->axes.front().knob + ": " + source + ", " + per_point;
  grid_window_ =
      std::make_unique<GridWindow>(std::move(result).value(), plan->spec, title,
                                   [this](const spec::PipelineSpec& spec, const QString& change) {
                                     RunAdvised(spec, "the grid's best, " + change);
                                   });
  grid_window_->show();
  statusBar()->showMessage(grid_window_->summary_text(), 15000);
  return grid_window_.get();
}

}  // namespace pipescope::ui
