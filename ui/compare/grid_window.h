#pragma once
// The Grid window (Tune > Grid of Knobs): steps/s measured at every point of a grid of knob
// values, drawn as grid --plot draws it (steps/s against the first knob, a line per value
// of the others, 95% intervals, the best ringed: session/grid_chart.h), the best and the
// points tied with it in words, and a button that runs the best point live.

#include <QWidget>
#include <functional>

#include "app/session/grid_search.h"

class QLabel;
class QPushButton;

namespace pipescope::ui {

class GridWindow : public QWidget {
  Q_OBJECT
 public:
  // `run_best` is called with the spec at the best point and a line saying what changed.
  GridWindow(session::GridResult result, spec::PipelineSpec spec, const std::string& title,
             std::function<void(const spec::PipelineSpec&, const QString&)> run_best,
             QWidget* parent = nullptr);

  const session::GridResult& result() const { return result_; }
  QString summary_text() const;
  const QLabel* chart() const { return chart_; }
  QPushButton* run_best_button() const { return run_best_; }

 private:
  session::GridResult result_;
  QLabel* summary_;
  QLabel* chart_;
  QPushButton* run_best_;
};

}  // namespace pipescope::ui
