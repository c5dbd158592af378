#pragma once
// The autotuner's progress as a chart under the verdict: each configuration it measured on
// the live run as a point (trial number against steps/s), the best so far as a stepped
// line, a y-axis of round numbers; hovering a point names its configuration.

#include <QWidget>
#include <vector>

#include "app/session/live_tuning.h"

namespace pipescope::ui {

class TuningChart : public QWidget {
  Q_OBJECT
 public:
  explicit TuningChart(QWidget* parent = nullptr);
  void SetTrials(std::vector<session::LiveTuning::Trial> trials);
  const std::vector<session::LiveTuning::Trial>& trials() const { return trials_; }

  // The best steps/s measured up to each trial.
  static std::vector<double> BestSoFar(const std::vector<session::LiveTuning::Trial>& trials);
  // What hovering at `at` shows: the nearest trial's number, rate and configuration ("" when
  // no trial is within a few pixels).
  QString TrialTextAt(QPoint at) const;
  // Where trial i is drawn (the centre of its point).
  QPointF PointOf(size_t i) const;

  QSize sizeHint() const override { return {320, 150}; }
  QSize minimumSizeHint() const override { return {200, 110}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QRectF PlotArea() const;

  std::vector<session::LiveTuning::Trial> trials_;
  double axis_top_ = 1;  // the y-axis' top for trials_, set with them
};

}  // namespace pipescope::ui
