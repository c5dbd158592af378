#include "ui/panels/statistics_panel.h"

#include <QHeaderView>
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "app/session/figure_table.h"

namespace pipescope::ui {
namespace {

// A number cell that sorts by value: the display role holds the (rounded) number itself.
QTableWidgetItem* Number(double v, int decimals) {
  auto* item = new QTableWidgetItem;
  const double scale = std::pow(10.0, decimals);
  item->setData(Qt::DisplayRole, std::round(v * scale) / scale);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

// The op figures the dock shows, in the table's order: its columns after the op and kind.
const std::vector<const session::StageFigure*>& DockFigures() {
  static const std::vector<const session::StageFigure*> figures = [] {
    std::vector<const session::StageFigure*> shown;
    for (const session::StageFigure& f : session::StageFigureTable()) {
      if ((f.views & session::kGuiView) != 0u) shown.push_back(&f);
    }
    return shown;
  }();
  return figures;
}

}  // namespace

StatisticsPanel::StatisticsPanel(QWidget* parent) : QTableWidget(0, OpColumnCount(), parent) {
  SetOpHeaders();
  setSortingEnabled(true);
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  verticalHeader()->setVisible(false);
  horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  connect(horizontalHeader(), &QHeaderView::sectionClicked, this, [this] { user_sorted_ = true; });
}

int StatisticsPanel::OpColumnCount() {
  return kFirstFigure + static_cast<int>(DockFigures().size());
}

void StatisticsPanel::SetOpHeaders() {
  setHorizontalHeaderItem(kOp, new QTableWidgetItem("op"));
  setHorizontalHeaderItem(kKind, new QTableWidgetItem("kind"));
  int column = kFirstFigure;
  for (const session::StageFigure* f : DockFigures()) {
    auto* header = new QTableWidgetItem(QString::fromStdString(session::HeaderWithUnit(*f)));
    header->setToolTip(QString::fromUtf8(f->tooltip));
    setHorizontalHeaderItem(column++, header);
  }
}

void StatisticsPanel::SetMode(bool names) {
  if (names == names_) return;
  names_ = names;
  user_sorted_ = false;
  setRowCount(0);
  if (names) {
    setColumnCount(kNameColumnCount);
    setHorizontalHeaderLabels({"name", "category", "count", "total (ms)", "own (ms)", "where"});
    // Kernel names run to hundreds of characters: the name column gets a fixed share the
    // user can drag, one line per row, the whole name in its tooltip.
    setWordWrap(false);
    horizontalHeader()->setSectionResizeMode(kName, QHeaderView::Interactive);
    setColumnWidth(kName, 380);
  } else {
    setWordWrap(true);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    setColumnCount(OpColumnCount());
    SetOpHeaders();
  }
  horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
}

void StatisticsPanel::ShowSpanStatistics(const trace::SpanStatistics& spans) {
  SetMode(true);
  const int sort_column = horizontalHeader()->sortIndicatorSection();
  const Qt::SortOrder order = horizontalHeader()->sortIndicatorOrder();
  setSortingEnabled(false);
  const int rows = static_cast<int>(std::min<size_t>(spans.names.size(), kMaxNameRows));
  setRowCount(rows);
  for (int row = 0; row < rows; ++row) {
    const trace::NameTotals& n = spans.names[static_cast<size_t>(row)];
    auto* name = new QTableWidgetItem(QString::fromStdString(n.name));
    name->setToolTip(QString::fromStdString(n.name));
    name->setData(Qt::UserRole, row);  // by total time
    setItem(row, kName, name);
    setItem(row, kCategory, new QTableWidgetItem(QString::fromStdString(n.category)));
    setItem(row, kCount, Number(static_cast<double>(n.count), 0));
    setItem(row, kTotalMs, Number(static_cast<double>(n.total_ns) / 1e6, 3));
    setItem(row, kOwnMs, Number(static_cast<double>(n.self_ns) / 1e6, 3));
    setItem(row, kWhere, new QTableWidgetItem(n.device ? "device" : "host"));
  }
  if (!user_sorted_) horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  setSortingEnabled(true);
  if (user_sorted_ && sort_column >= 0 && sort_column < kNameColumnCount)
    sortItems(sort_column, order);
}

void StatisticsPanel::ShowAnalysis(const trace::RangeAnalysis& a) {
  SetMode(false);
  const int sort_column = horizontalHeader()->sortIndicatorSection();
  const Qt::SortOrder order = horizontalHeader()->sortIndicatorOrder();
  setSortingEnabled(false);
  setRowCount(static_cast<int>(a.stages.size()));
  for (int row = 0; row < static_cast<int>(a.stages.size()); ++row) {
    const trace::StageFigures& s = a.stages[static_cast<size_t>(row)];
    auto* name = new QTableWidgetItem(QString::fromStdString(s.name));
    name->setData(Qt::UserRole, row);  // pipeline order
    setItem(row, kOp, name);
    setItem(row, kKind, new QTableWidgetItem(QString::fromStdString(s.op)));
    int column = kFirstFigure;
    for (const session::StageFigure* f : DockFigures()) {
      const std::optional<double> v = f->value(s);
      setItem(row, column++,
              v ? Number(*v * f->shown_per_base, f->decimals) : new QTableWidgetItem(""));
    }
  }
  // Keep the user's sort across refreshes; pipeline order until there is one.
  if (!user_sorted_) horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  setSortingEnabled(true);
  if (user_sorted_ && sort_column >= 0 && sort_column < OpColumnCount()) {
    sortItems(sort_column, order);
  }
}

}  // namespace pipescope::ui
