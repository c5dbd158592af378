#pragma once
// The Grid window (Tune > Grid of Knobs): steps/s measured at every point of a grid of knob
// values, drawn as grid --plot draws it (steps/s against the first knob, a line per value
// of the others, 95% intervals, the best ringed: session/grid_chart.h), the best and the
// points tied with it in words, and a button that runs the best point live. Hovering a
// point says its knobs and rate; a double click runs it.

#include <QWidget>
#include <functional>

#include "app/session/grid_chart.h"
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
  QLabel* chart() const { return chart_; }
  QPushButton* run_best_button() const { return run_best_; }

  // The point drawn nearest `pos` (the chart label's coordinates), within kHoverPixels; -1
  // where there is none. Hovering it shows PointText; a double click runs it live.
  int PointAt(QPoint pos) const;
  static constexpr double kHoverPixels = 14;
  // "decode.num_parallel_calls=2: 118.2 ± 3.1 steps/s, tied with the best".
  QString PointText(size_t point) const;
  // Starts a live run of the pipeline with `point`'s knobs.
  void RunPoint(size_t point);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  session::GridResult result_;
  session::GridChart chart_data_;  // what the picture shows, where PointAt looks
  spec::PipelineSpec spec_;
  std::function<void(const spec::PipelineSpec&, const QString&)> run_;
  QLabel* summary_;
  QLabel* chart_;
  QPushButton* run_best_;
};

}  // namespace pipescope::ui
