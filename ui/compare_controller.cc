#include "ui/compare_controller.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>
#include <atomic>
#include <cstdio>
#include <future>
#include <mutex>

#include "app/session/comparison.h"
#include "app/session/grid_search.h"
#include "app/session/whatif_comparison.h"
#include "engine/spec/spec_loader.h"
#include "engine/tuning/pipescope_tuner.h"
#include "instrumentation/trace/rate_interval.h"
#include "ui/compare/compare_window.h"
#include "ui/compare/grid_window.h"
#include "ui/compare/whatif_dialog.h"
#include "ui/modal_progress.h"
#include "ui/run_controller.h"
#include "ui/trace_document.h"

namespace pipescope::ui {
namespace {

QString Text(const std::string& s) { return QString::fromStdString(s); }

// Compare's and the grid's windows take the window's theme.
bool DarkTheme() { return QSettings().value("view/dark", true).toBool(); }

// "3 decode.num_parallel_calls x 4 prefetch.buffer_size".
std::string AxesText(const session::GridPlan& plan) {
  std::string axes;
  for (const auto& a : plan.axes)
    axes += (axes.empty() ? "" : " x ") + std::to_string(a.values.size()) + " " + a.knob;
  return axes;
}

}  // namespace

CompareController::CompareController(QWidget* window, TraceDocument* document, RunController* run)
    : window_(window), document_(document), run_(run) {
  connect(run_, &RunController::ActionsChanged, this, &CompareController::UpdateActions);
}

CompareController::~CompareController() = default;

void CompareController::BuildMenu(QMenu* tune) {
  compare_tuned_ = tune->addAction("&Compare with Autotuned", QKeySequence(Qt::CTRL | Qt::Key_K),
                                   this, [this] { CompareWith(std::nullopt, "autotuned"); });
  compare_tuned_->setToolTip(
      "Runs your configuration and the autotuned one for the same time, side by side");
  compare_spec_ = tune->addAction("Compare with a Saved &Spec...", this,
                                  &CompareController::CompareWithSpecDialog);
  grid_ = tune->addAction("&Grid of Knobs", QKeySequence(Qt::CTRL | Qt::Key_G), this,
                          [this] { GridOfKnobs({}, 1.0); });
  grid_->setToolTip(
      "Measures every combination of the parallelism and buffer sizes for 1 s each: steps/s "
      "against parallelism, the best, and the points tied with it");
  tune->addSeparator();
  whatif_ = tune->addAction("&What If... (PyTorch trace)", QKeySequence(Qt::CTRL | Qt::Key_I), this,
                            &CompareController::WhatIfDialog);
  whatif_->setToolTip(
      "Predicts what this PyTorch job would do with other DataLoader settings, beside the trace");
  UpdateActions();
}

void CompareController::UpdateActions() {
  if (compare_tuned_ == nullptr) return;
  compare_tuned_->setEnabled(run_->has_spec());
  compare_spec_->setEnabled(run_->has_spec());
  grid_->setEnabled(run_->has_spec());
  whatif_->setEnabled(!run_->is_live() && document_->imported_from() == "pytorch");
}

void CompareController::WhatIfDialog() {
  if (!document_->is_open()) return;
  auto job = trace::ReadLoaderJob(*document_->model());
  if (!job.ok()) {
    QMessageBox::warning(window_, "What If", Text(job.status().message()));
    return;
  }
  ui::WhatIfDialog dialog(*job, window_);
  if (dialog.exec() != QDialog::Accepted) return;
  WhatIf(dialog.options());
}

CompareWindow* CompareController::WhatIf(const session::WhatIfOptions& options) {
  if (!document_->is_open() || run_->is_live()) return nullptr;
  auto job = trace::ReadLoaderJob(*document_->model());
  auto prediction = job.ok() ? session::PredictWhatIf(*job, options)
                             : engine::Result<session::WhatIfPrediction>(job.status());
  if (!prediction.ok()) {
    QMessageBox::warning(window_, "What If", Text(prediction.status().message()));
    return nullptr;
  }
  compare_window_ = std::make_unique<CompareWindow>(
      session::WhatIfComparison(document_->shared_model(), *prediction), DarkTheme());
  compare_window_->setWindowTitle("What If: " + document_->title() + " - Pipescope");
  compare_window_->show();
  emit Message(Text(compare_window_->comparison().verdict), 10000);
  return compare_window_.get();
}

void CompareController::CompareWithSpecDialog() {
  QSettings settings;
  const QString path = QFileDialog::getOpenFileName(window_, "Compare with a pipeline spec",
                                                    settings.value("files/spec_dir").toString(),
                                                    "Pipeline specs (*.pbtxt)");
  if (path.isEmpty()) return;
  settings.setValue("files/spec_dir", QFileInfo(path).absolutePath());
  auto spec = engine::LoadSpecFile(path.toStdString());
  if (!spec.ok()) {
    QMessageBox::warning(window_, "Cannot compare", Text(spec.status().message()));
    return;
  }
  CompareWith(*spec, QFileInfo(path).completeBaseName());
}

CompareWindow* CompareController::CompareWith(std::optional<spec::PipelineSpec> other,
                                              const QString& other_name) {
  const std::optional<spec::PipelineSpec> mine = run_->CurrentConfiguration();
  if (!mine) {
    QMessageBox::information(window_, "Compare", "Open a pipeline spec first: Compare runs it.");
    return nullptr;
  }
  run_->StopRunAndWait();  // both sides are measured with the machine to themselves
  const Settings settings = settings_;
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
  ModalProgress progress(window_, "Compare", "Comparing...", 0, 0);
  auto result = progress.Await(
      work,
      [&](QProgressDialog& dialog) {
        std::lock_guard lock(stage_mu);
        dialog.setLabelText(Text(stage) + "...");
      },
      [&] { canceller.Cancel(); });
  if (!result.ok()) {
    if (result.status().code() != engine::StatusCode::kCancelled)
      QMessageBox::warning(window_, "Cannot compare", Text(result.status().message()));
    return nullptr;
  }
  compare_window_ = std::make_unique<CompareWindow>(std::move(result).value(), DarkTheme());
  compare_window_->show();
  emit Message(compare_window_->verdict_text(), 15000);
  return compare_window_.get();
}

GridWindow* CompareController::GridOfKnobs(const std::vector<std::string>& knobs, double seconds) {
  const std::optional<spec::PipelineSpec> mine = run_->CurrentConfiguration();
  if (!mine) {
    QMessageBox::information(window_, "Grid of Knobs",
                             "Open a pipeline spec first: the grid runs it at every point.");
    return nullptr;
  }
  const std::string source = run_->spec_path().isEmpty()
                                 ? std::string("the pipeline")
                                 : QFileInfo(run_->spec_path()).fileName().toStdString();
  auto plan = session::PlanGrid(*mine, knobs, source);
  if (!plan.ok()) {
    QMessageBox::warning(window_, "Grid of Knobs", Text(plan.status().message()));
    return nullptr;
  }
  const size_t total = plan->points();
  if (total > kGridPointsWithoutAsking) {
    const QString question =
        QString("The grid has %1 points (%2) of %3 s each: about %4 s, the live run stopped.")
            .arg(total)
            .arg(Text(AxesText(*plan)))
            .arg(seconds)
            .arg(static_cast<double>(total) * seconds, 0, 'f', 0);
    if (!run_->Confirm("Grid of Knobs", question, "Measure every point?", "Measure Every Point"))
      return nullptr;
  }
  run_->StopRunAndWait();  // every point is measured with the machine to itself
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
  ModalProgress progress(window_, "Grid of Knobs", "Measuring the grid...", static_cast<int>(total),
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
      QMessageBox::warning(window_, "Grid of Knobs", Text(result.status().message()));
    return nullptr;
  }
  char per_point[32];
  std::snprintf(per_point, sizeof per_point, "%g s a point", seconds);
  const std::string title =
      "steps/s by " + result->axes.front().knob + ": " + source + ", " + per_point;
  grid_window_ =
      std::make_unique<GridWindow>(std::move(result).value(), plan->spec, title,
                                   [this](const spec::PipelineSpec& spec, const QString& change) {
                                     run_->RunAdvised(spec, "the grid's best, " + change);
                                   });
  grid_window_->show();
  emit Message(grid_window_->summary_text(), 15000);
  return grid_window_.get();
}

}  // namespace pipescope::ui
