#include "ui/panels/tuning_chart.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "engine/core/axis_top.h"

namespace pipescope::ui {
namespace {

const QColor kTrial(70, 190, 100);  // the timeline's step green: a trial's steps/s
const QColor kBest(255, 200, 60);   // the highlight yellow: the best so far
constexpr double kHoverPixels = 8;

}  // namespace

TuningChart::TuningChart(QWidget* parent) : QWidget(parent) {
  setObjectName("tuning_chart");
  setMouseTracking(true);
}

void TuningChart::SetTrials(std::vector<session::LiveTuning::Trial> trials) {
  trials_ = std::move(trials);
  double max = 0;
  for (const auto& t : trials_) max = std::max(max, t.steps_per_s);
  axis_top_ = engine::RoundAxisTop(max);
  update();
}

std::vector<double> TuningChart::BestSoFar(const std::vector<session::LiveTuning::Trial>& trials) {
  std::vector<double> best;
  best.reserve(trials.size());
  for (const auto& t : trials)
    best.push_back(std::max(best.empty() ? 0 : best.back(), t.steps_per_s));
  return best;
}

QRectF TuningChart::PlotArea() const {
  // Room on the left for the y labels, above for the title, below for the trial numbers.
  const QFontMetrics fm = fontMetrics();
  const double left = fm.horizontalAdvance("0000") + 8;
  return QRectF(left, fm.height() + 6, std::max(10.0, width() - left - 8),
                std::max(10.0, height() - 2.0 * fm.height() - 10));
}

QPointF TuningChart::PointOf(size_t i) const {
  const QRectF area = PlotArea();
  const double n = static_cast<double>(std::max<size_t>(trials_.size(), 1));
  const double x = area.left() + (static_cast<double>(i) + 0.5) * area.width() / n;
  const double y = area.bottom() - trials_[i].steps_per_s / axis_top_ * area.height();
  return {x, y};
}

QString TuningChart::TrialTextAt(QPoint at) const {
  int nearest = -1;
  double nearest_distance = kHoverPixels;
  for (size_t i = 0; i < trials_.size(); ++i) {
    const QPointF p = PointOf(i);
    const double distance = std::hypot(p.x() - at.x(), p.y() - at.y());
    if (distance <= nearest_distance) {
      nearest_distance = distance;
      nearest = static_cast<int>(i);
    }
  }
  if (nearest < 0) return {};
  const auto& t = trials_[static_cast<size_t>(nearest)];
  return QString("trial %1 (tuning %2, at %3 s): %4 steps/s\n%5")
      .arg(nearest + 1)
      .arg(t.tuning)
      .arg(t.at_s, 0, 'f', 1)
      .arg(t.steps_per_s, 0, 'f', 1)
      .arg(QString::fromStdString(t.configuration));
}

bool TuningChart::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    const QString text = TrialTextAt(help->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(help->globalPos(), text, this);
    }
    return true;
  }
  return QWidget::event(event);
}

void TuningChart::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const QRectF area = PlotArea();
  const QFontMetrics fm = fontMetrics();
  const QColor text = palette().color(QPalette::WindowText);
  QColor grid = text;
  grid.setAlpha(50);
  painter.setPen(text);
  painter.drawText(QPointF(area.left(), fm.ascent() + 2),
                   fm.elidedText("steps/s of each trial; line: the best so far", Qt::ElideRight,
                                 static_cast<int>(width() - area.left())));
  const double top = axis_top_;
  for (const double v : {0.0, top / 2, top}) {
    const double y = std::round(area.bottom() - v / top * area.height());
    painter.setPen(grid);
    painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
    painter.setPen(text);
    const QString label = QString::number(v, 'g', 4);
    painter.drawText(
        QPointF(area.left() - 6 - fm.horizontalAdvance(label), y + fm.ascent() / 2.0 - 1), label);
  }
  if (trials_.empty()) return;
  // The best so far: flat until a trial beats it, then up.
  const std::vector<double> best = BestSoFar(trials_);
  QPainterPath line;
  const double step = area.width() / static_cast<double>(trials_.size());
  for (size_t i = 0; i < trials_.size(); ++i) {
    const double y = area.bottom() - best[i] / top * area.height();
    const double x0 = area.left() + static_cast<double>(i) * step;
    if (i == 0) {
      line.moveTo(x0, y);
    } else {
      line.lineTo(x0, y);
    }
    line.lineTo(x0 + step, y);
  }
  painter.setPen(QPen(kBest, 2));
  painter.drawPath(line);
  painter.setPen(Qt::NoPen);
  painter.setBrush(kTrial);
  for (size_t i = 0; i < trials_.size(); ++i) painter.drawEllipse(PointOf(i), 3.5, 3.5);
  // Trial numbers under the first and the last point.
  painter.setPen(text);
  const double label_y = area.bottom() + fm.ascent() + 3;
  painter.drawText(QPointF(PointOf(0).x() - 3, label_y), "1");
  if (trials_.size() > 1) {
    const QString last = QString::number(trials_.size());
    painter.drawText(
        QPointF(PointOf(trials_.size() - 1).x() - fm.horizontalAdvance(last) / 2.0, label_y), last);
  }
}

}  // namespace pipescope::ui
