#pragma once
// The autotuners on the live run (Tune menu's first part): one tuning at a time, its knob
// moves marked on the timeline by the run, its progress in a line and a chart of its
// trials under the verdict.

#include <QObject>
#include <QString>
#include <memory>

#include "app/session/live_tuning.h"

class QAction;
class QLabel;
class QMenu;
class QWidget;

namespace pipescope::ui {

class RunController;
class TuningChart;

class TuneController : public QObject {
  Q_OBJECT
 public:
  // `label` and `chart` show the tuning's progress (the verdict dock places them).
  TuneController(QWidget* window, RunController* run, QLabel* label, TuningChart* chart);
  ~TuneController() override;

  void BuildMenu(QMenu* tune);
  QLabel* progress_label() const { return label_; }
  TuningChart* chart() const { return chart_; }

  // Starts an autotuner ("pipescope" or "tfdata") on the live run. Periodic when the menu
  // says so.
  bool StartTuning(const QString& algorithm);
  void StopTuning();
  session::LiveTuning* live_tuning() const { return tuning_.get(); }
  // The tuning's line under the verdict ("" when none is shown).
  QString tuning_text() const;
  // The settle and measure windows of each trial (the defaults otherwise).
  void SetTuningTimes(double settle_s, double measure_s) {
    times_.settle_s = settle_s;
    times_.measure_s = measure_s;
  }
  // The line, the chart and the menu's actions as the tuning now stands.
  void Refresh();

 signals:
  void Message(const QString& text, int timeout_ms);

 private:
  QWidget* window_;
  RunController* run_;
  std::unique_ptr<session::LiveTuning> tuning_;  // reset before the run it drives goes
  session::LiveTuning::Options times_;
  QLabel* label_;
  TuningChart* chart_;
  QAction* tune_pipescope_ = nullptr;
  QAction* tune_tfdata_ = nullptr;
  QAction* stop_tuning_ = nullptr;
  QAction* periodic_ = nullptr;
};

}  // namespace pipescope::ui
