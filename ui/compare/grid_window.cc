#include "ui/compare/grid_window.h"

#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QPixmap>
#include <QPushButton>
#include <QVBoxLayout>

#include "app/session/grid_chart.h"
#include "engine/spec/spec_overrides.h"
#include "instrumentation/trace/rate_interval.h"

namespace pipescope::ui {

GridWindow::GridWindow(session::GridResult result, spec::PipelineSpec spec,
                       const std::string& title,
                       std::function<void(const spec::PipelineSpec&, const QString&)> run_best,
                       QWidget* parent)
    : QWidget(parent, Qt::Window), result_(std::move(result)) {
  setWindowTitle("Grid of Knobs - Pipescope");
  auto* column = new QVBoxLayout(this);
  const session::GridPoint& best = result_.points[result_.best];
  QString text =
      QString("Best of %1 points: %2 at %3 (95% interval).")
          .arg(result_.points.size())
          .arg(QString::fromStdString(best.Label(result_.axes)))
          .arg(QString::fromStdString(trace::StepRateText({best.steps_per_s, best.half_width})));
  if (!result_.ties.empty()) {
    QStringList tied;
    for (const size_t t : result_.ties)
      tied << QString::fromStdString(result_.points[t].Label(result_.axes));
    text += " A tie with it, within the noise of both: " + tied.join("; ") + ".";
  }
  summary_ = new QLabel(text, this);
  summary_->setObjectName("grid_summary");
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  column->addWidget(summary_);

  // The chart grid --plot writes, drawn by the same code: one picture in both places.
  const session::Raster raster = session::DrawGridChart(session::ChartOf(result_, title));
  const QImage image(raster.pixels(), raster.width(), raster.height(), raster.width() * 3,
                     QImage::Format_RGB888);  // a view of the raster's pixels, copied below
  chart_ = new QLabel(this);
  chart_->setObjectName("grid_chart");
  chart_->setPixmap(QPixmap::fromImage(image));
  chart_->setAlignment(Qt::AlignCenter);
  column->addWidget(chart_, 1);

  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  run_best_ = new QPushButton("&Run the Best Live", this);
  run_best_->setToolTip("Starts a live run of the pipeline with the best point's knobs");
  buttons->addWidget(run_best_);
  column->addLayout(buttons);
  connect(run_best_, &QPushButton::clicked, this,
          [this, spec = std::move(spec), run_best = std::move(run_best)] {
            spec::PipelineSpec at_best = spec;
            const session::GridPoint& point = result_.points[result_.best];
            for (size_t a = 0; a < result_.axes.size(); ++a) {
              const std::string assignment =
                  result_.axes[a].knob + "=" + std::to_string(point.values[a]);
              if (!engine::ApplyOverride(at_best, assignment).ok()) return;
            }
            if (run_best) run_best(at_best, QString::fromStdString(point.Label(result_.axes)));
          });
}

QString GridWindow::summary_text() const { return summary_->text(); }

}  // namespace pipescope::ui
