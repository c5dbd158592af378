#pragma once
// The Compare window: two runs of a pipeline (the person's configuration and the
// autotuned one, or any saved spec) measured for the same time, shown one above the other
// on one time axis (zooming or panning either moves both), their figures side by side with
// the better one marked, the knobs that differ highlighted, and the one-line verdict.

#include <QWidget>

#include "app/session/comparison.h"

class QLabel;
class QTableWidget;

namespace pipescope::ui {

class TimelineWidget;

class CompareWindow : public QWidget {
  Q_OBJECT
 public:
  explicit CompareWindow(session::Comparison comparison, bool dark, QWidget* parent = nullptr);

  const session::Comparison& comparison() const { return comparison_; }
  QString verdict_text() const;
  TimelineWidget* timeline(int side) const { return side == 0 ? top_ : bottom_; }
  QTableWidget* figures() const { return figures_; }
  QTableWidget* knob_differences() const { return knobs_; }
  QLabel* notes() const { return notes_; }  // null without notes

 private:
  void FillFigures();
  void FillKnobs();

  session::Comparison comparison_;
  QLabel* verdict_;
  QTableWidget* figures_;
  QTableWidget* knobs_;
  QLabel* notes_ = nullptr;
  TimelineWidget* top_;
  TimelineWidget* bottom_;
};

}  // namespace pipescope::ui
