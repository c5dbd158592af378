#include "ui/compare/compare_window.h"

#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>
#include <vector>

#include "app/session/figure_table.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

const QColor kBetter(60, 160, 90);
const QColor kDiffers(200, 150, 30);

QTableWidgetItem* Cell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  return item;
}

QWidget* Labelled(const QString& title, QWidget* content, QWidget* parent) {
  auto* box = new QWidget(parent);
  auto* column = new QVBoxLayout(box);
  column->setContentsMargins(0, 0, 0, 0);
  auto* label = new QLabel("<b>" + title.toHtmlEscaped() + "</b>", box);
  column->addWidget(label);
  column->addWidget(content, 1);
  return box;
}

}  // namespace

CompareWindow::CompareWindow(session::Comparison comparison, bool dark, QWidget* parent)
    : QWidget(parent, Qt::Window), comparison_(std::move(comparison)) {
  const QString a = QString::fromStdString(comparison_.name_a);
  const QString b = QString::fromStdString(comparison_.name_b);
  setWindowTitle(QString("Compare: %1 and %2 - Pipescope").arg(a, b));
  // 1280x860 where the screen has room, else what it has: on a 1280x800 screen a fixed size
  // put the second timeline's bottom off the screen.
  const QScreen* screen = parent != nullptr ? parent->screen() : QGuiApplication::primaryScreen();
  const QRect room = screen != nullptr ? screen->availableGeometry() : QRect(0, 0, 1280, 860);
  resize(std::min(1280, room.width() * 95 / 100), std::min(860, room.height() * 90 / 100));
  auto* column = new QVBoxLayout(this);

  verdict_ = new QLabel(QString::fromStdString(comparison_.verdict), this);
  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont big = verdict_->font();
  big.setPointSizeF(big.pointSizeF() * 1.3);
  big.setBold(true);
  verdict_->setFont(big);
  column->addWidget(verdict_);

  auto* tables = new QHBoxLayout;
  figures_ = new QTableWidget(this);
  figures_->setObjectName("compare_figures");
  knobs_ = new QTableWidget(this);
  knobs_->setObjectName("compare_knobs");
  for (QTableWidget* t : {figures_, knobs_}) {
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    // Rows a line of text high: every figure in view without scrolling on a 1280x800 screen
    // (the style's default row, 30 px, showed four of eight).
    t->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
  }
  FillFigures();
  FillKnobs();
  // As high as the figures' rows (the knobs' table beside it too), up to twelve rows.
  const int rows = std::min(12, std::max({figures_->rowCount(), knobs_->rowCount(), 4}));
  const int height = figures_->horizontalHeader()->sizeHint().height() +
                     rows * figures_->verticalHeader()->defaultSectionSize() +
                     2 * figures_->frameWidth();
  for (QTableWidget* t : {figures_, knobs_}) t->setFixedHeight(height);
  tables->addWidget(Labelled(comparison_.b_predicted
                                 ? "Figures (steady steps; " + b + " is simulated, not measured)"
                                 : QString("Figures (steady state; the better one in green)"),
                             figures_, this),
                    3);
  tables->addWidget(Labelled("Knobs that differ", knobs_, this), 2);
  column->addLayout(tables);
  if (!comparison_.notes.empty()) {
    QString text = "<b>" + QString(comparison_.b_predicted ? "The prediction assumes" : "Notes") +
                   "</b><ul style='margin: 0'>";
    for (const auto& n : comparison_.notes)
      text += "<li>" + QString::fromStdString(n).toHtmlEscaped() + "</li>";
    notes_ = new QLabel(text + "</ul>", this);
    notes_->setObjectName("compare_notes");
    notes_->setWordWrap(true);
    notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Scrolled, so that the figures and the timelines keep their room.
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(notes_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMaximumHeight(notes_->fontMetrics().lineSpacing() * 7);
    column->addWidget(scroll);
  }

  auto* split = new QSplitter(Qt::Vertical, this);
  top_ = new TimelineWidget(split);
  bottom_ = new TimelineWidget(split);
  const int64_t span = std::max(comparison_.a.model ? comparison_.a.model->duration_ns() : 0,
                                comparison_.b.model ? comparison_.b.model->duration_ns() : 0);
  const std::pair<TimelineWidget*, const session::SpecMeasurement*> sides[] = {
      {top_, &comparison_.a}, {bottom_, &comparison_.b}};
  for (const auto& [timeline, m] : sides) {
    timeline->SetDarkTheme(dark);
    timeline->SetModel(m->model);
    timeline->SetView(0, span);
  }
  // Each side's steps/s plot carries the other's rate, on one y-axis.
  top_->SetRateOverlay(comparison_.b.model, comparison_.name_b);
  bottom_->SetRateOverlay(comparison_.a.model, comparison_.name_a);
  split->addWidget(Labelled(a, top_, split));
  split->addWidget(Labelled(b, bottom_, split));
  column->addWidget(split, 1);
  // One time axis: each timeline's view follows the other's.
  connect(top_, &TimelineWidget::ViewChanged, bottom_, [this](qint64 t0, qint64 t1) {
    if (bottom_->view_start() != t0 || bottom_->view_end() != t1) bottom_->SetView(t0, t1);
  });
  connect(bottom_, &TimelineWidget::ViewChanged, top_, [this](qint64 t0, qint64 t1) {
    if (top_->view_start() != t0 || top_->view_end() != t1) top_->SetView(t0, t1);
  });
}

QString CompareWindow::verdict_text() const { return verdict_->text(); }

void CompareWindow::FillFigures() {
  figures_->setColumnCount(3);
  figures_->setHorizontalHeaderLabels(
      {"", QString::fromStdString(comparison_.name_a), QString::fromStdString(comparison_.name_b)});
  std::vector<const session::RunFigure*> shown;
  for (const session::RunFigure& f : session::RunFigureTable()) {
    if ((f.views & session::kGuiView) != 0u && (f.predicted || !comparison_.b_predicted)) {
      shown.push_back(&f);
    }
  }
  figures_->setRowCount(static_cast<int>(shown.size()));
  int row = 0;
  for (const session::RunFigure* f : shown) {
    auto* name = Cell(QString::fromStdString(session::HeaderWithUnit(*f)));
    name->setToolTip(QString::fromUtf8(f->tooltip));
    figures_->setItem(row, 0, name);
    const session::SpecMeasurement* sides[2] = {&comparison_.a, &comparison_.b};
    for (int side = 0; side < 2; ++side) {
      auto* cell = Cell(QString::fromStdString(session::FormatNumber(*f, *sides[side])));
      cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      const std::optional<double> mine = f->value(*sides[side]);
      const std::optional<double> other = f->value(*sides[1 - side]);
      // Better by more than 3% (the machines are noisy): marked.
      if (mine && other && session::Beats(f->better, *mine, *other, 0.03)) {
        cell->setForeground(kBetter);
        QFont bold = cell->font();
        bold.setBold(true);
        cell->setFont(bold);
      }
      figures_->setItem(row, side + 1, cell);
    }
    ++row;
  }
}

void CompareWindow::FillKnobs() {
  knobs_->setColumnCount(3);
  knobs_->setHorizontalHeaderLabels({"knob", QString::fromStdString(comparison_.name_a),
                                     QString::fromStdString(comparison_.name_b)});
  const auto& diffs = comparison_.differences;
  knobs_->setRowCount(static_cast<int>(diffs.size()) + (comparison_.same_ops ? 0 : 1));
  int row = 0;
  auto value = [](const std::optional<int64_t>& v) {
    return v ? QString::number(*v) : QString("(none)");
  };
  for (const auto& d : diffs) {
    const QString cells[3] = {QString::fromStdString(d.knob), value(d.a), value(d.b)};
    for (int c = 0; c < 3; ++c) {
      auto* cell = Cell(cells[c]);
      cell->setForeground(kDiffers);
      knobs_->setItem(row, c, cell);
    }
    ++row;
  }
  if (!comparison_.same_ops) {
    knobs_->setItem(row, 0, Cell("op order"));
    knobs_->setItem(row, 1, Cell("differs"));
    knobs_->setItem(row, 2, Cell("differs"));
  }
}

}  // namespace pipescope::ui
