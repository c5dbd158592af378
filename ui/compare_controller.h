#pragma once
// Comparing configurations (the Tune menu's second part): the current configuration
// against the autotuned one or a saved spec, side by side; a grid of knob values measured
// point by point; and, on a PyTorch trace, what the job would do with other DataLoader
// settings. Each measures with the machine to itself (the live run stops first) and opens
// its window.

#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/session/trace_whatif.h"
#include "engine/spec/pipeline_spec.pb.h"

class QAction;
class QMenu;
class QWidget;

namespace pipescope::ui {

class CompareWindow;
class GridWindow;
class RunController;
class TraceDocument;

class CompareController : public QObject {
  Q_OBJECT
 public:
  CompareController(QWidget* window, TraceDocument* document, RunController* run);
  ~CompareController() override;

  void BuildMenu(QMenu* tune);
  // Enables the menu's actions for what is shown.
  void UpdateActions();

  // How long Compare measures each side, and how the autotuner it runs measures.
  struct Settings {
    double duration_s = 5;
    double tune_measure_s = 2;
    double tune_budget_s = 20;
  };
  void SetSettings(const Settings& s) { settings_ = s; }

  // Runs the current configuration and `other` (nullopt: what the pipescope autotuner
  // finds) for the same time and opens the Compare window. Returns the window (null:
  // cancelled or failed).
  CompareWindow* CompareWith(std::optional<spec::PipelineSpec> other, const QString& other_name);
  CompareWindow* compare_window() const { return compare_window_.get(); }
  // Measures the current configuration at every point of a grid over `knobs` ("op.knob";
  // empty: every parallelism and buffer-size knob), `seconds` a point, with progress and
  // Cancel, and opens the Grid window with the chart `grid --plot` draws. Returns the
  // window (null: cancelled or failed, said in a message box). A grid of more than
  // kGridPointsWithoutAsking points asks first (RunController::SetConfirmation).
  GridWindow* GridOfKnobs(const std::vector<std::string>& knobs, double seconds);
  static constexpr size_t kGridPointsWithoutAsking = 12;
  GridWindow* grid_window() const { return grid_window_.get(); }
  // On a PyTorch profiler trace: predicts the job at other DataLoader settings
  // (session::PredictWhatIf) and opens Compare with the trace and the prediction. Errors in
  // a message box (null then).
  CompareWindow* WhatIf(const session::WhatIfOptions& options);
  void WhatIfDialog();

 signals:
  void Message(const QString& text, int timeout_ms);

 private:
  void CompareWithSpecDialog();

  QWidget* window_;
  TraceDocument* document_;
  RunController* run_;
  Settings settings_;
  std::unique_ptr<CompareWindow> compare_window_;
  std::unique_ptr<GridWindow> grid_window_;
  QAction* compare_tuned_ = nullptr;
  QAction* compare_spec_ = nullptr;
  QAction* grid_ = nullptr;
  QAction* whatif_ = nullptr;
};

}  // namespace pipescope::ui
