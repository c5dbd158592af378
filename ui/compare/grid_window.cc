#include "ui/compare/grid_window.h"

#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QMouseEvent>
#include <QPixmap>
#include <QPushButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "engine/spec/spec_overrides.h"
#include "instrumentation/trace/rate_interval.h"

namespace pipescope::ui {

GridWindow::GridWindow(session::GridResult result, spec::PipelineSpec spec,
                       const std::string& title,
                       std::function<void(const spec::PipelineSpec&, const QString&)> run_best,
                       QWidget* parent)
    : QWidget(parent, Qt::Window),
      result_(std::move(result)),
      chart_data_(session::ChartOf(result_, title)),
      spec_(std::move(spec)),
      run_(std::move(run_best)) {
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
  const session::Raster raster = session::DrawGridChart(chart_data_);
  const QImage image(raster.pixels(), raster.width(), raster.height(), raster.width() * 3,
                     QImage::Format_RGB888);  // a view of the raster's pixels, copied below
  chart_ = new QLabel(this);
  chart_->setObjectName("grid_chart");
  chart_->setPixmap(QPixmap::fromImage(image));
  chart_->setAlignment(Qt::AlignCenter);
  chart_->setMouseTracking(true);
  chart_->installEventFilter(this);
  column->addWidget(chart_, 1);

  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  run_best_ = new QPushButton("&Run the Best Live", this);
  run_best_->setToolTip("Starts a live run of the pipeline with the best point's knobs");
  buttons->addWidget(run_best_);
  column->addLayout(buttons);
  connect(run_best_, &QPushButton::clicked, this, [this] { RunPoint(result_.best); });
}

int GridWindow::PointAt(QPoint pos) const {
  // The picture is drawn at its size, centred in the label.
  const double left = (chart_->width() - session::kGridPlotWidth) / 2.0;
  const double top = (chart_->height() - session::kGridPlotHeight) / 2.0;
  int nearest = -1;
  double nearest_distance = kHoverPixels;
  for (size_t p = 0; p < chart_data_.points.size(); ++p) {
    const session::GridChartPlace place = session::PlaceOf(chart_data_, p);
    const double distance = std::hypot(pos.x() - (left + place.x), pos.y() - (top + place.y));
    if (distance <= nearest_distance) {
      nearest = static_cast<int>(p);
      nearest_distance = distance;
    }
  }
  return nearest;
}

QString GridWindow::PointText(size_t point) const {
  const session::GridPoint& p = result_.points[point];
  QString text = QString::fromStdString(p.Label(result_.axes) + ": " +
                                        trace::StepRateText({p.steps_per_s, p.half_width}));
  if (point == result_.best) {
    text += ", the best";
  } else if (std::find(result_.ties.begin(), result_.ties.end(), point) != result_.ties.end()) {
    text += ", tied with the best";
  }
  return text + ". Double-click runs it live.";
}

void GridWindow::RunPoint(size_t point) {
  spec::PipelineSpec at_point = spec_;
  const session::GridPoint& p = result_.points[point];
  for (size_t a = 0; a < result_.axes.size(); ++a) {
    const std::string assignment = result_.axes[a].knob + "=" + std::to_string(p.values[a]);
    if (!engine::ApplyOverride(at_point, assignment).ok()) return;
  }
  if (run_) run_(at_point, QString::fromStdString(p.Label(result_.axes)));
}

bool GridWindow::eventFilter(QObject* watched, QEvent* event) {
  if (watched != chart_) return QWidget::eventFilter(watched, event);
  if (event->type() == QEvent::MouseMove) {
    const auto* move = static_cast<QMouseEvent*>(event);
    const int point = PointAt(move->position().toPoint());
    if (point >= 0) {
      QToolTip::showText(move->globalPosition().toPoint(), PointText(static_cast<size_t>(point)),
                         chart_);
    } else {
      QToolTip::hideText();
    }
  } else if (event->type() == QEvent::MouseButtonDblClick) {
    const int point = PointAt(static_cast<QMouseEvent*>(event)->position().toPoint());
    if (point >= 0) RunPoint(static_cast<size_t>(point));
    return point >= 0;
  }
  return QWidget::eventFilter(watched, event);
}

QString GridWindow::summary_text() const { return summary_->text(); }

}  // namespace pipescope::ui
