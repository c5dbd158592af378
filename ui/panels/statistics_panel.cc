#include "ui/panels/statistics_panel.h"

#include <QHeaderView>
#include <algorithm>
#include <cmath>

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

}  // namespace

StatisticsPanel::StatisticsPanel(QWidget* parent) : QTableWidget(0, kColumnCount, parent) {
  SetOpHeaders();
  setSortingEnabled(true);
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  verticalHeader()->setVisible(false);
  horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  connect(horizontalHeader(), &QHeaderView::sectionClicked, this, [this] { user_sorted_ = true; });
}

void StatisticsPanel::SetOpHeaders() {
  setHorizontalHeaderLabels({"op", "kind", "parallelism", "elements/s", "self/elem (µs)", "busy %",
                             "waiting %", "blocked %", "buffer fill %", "caused wait %", "CPU %"});
  if (QTableWidgetItem* cpu = horizontalHeaderItem(kCpuShare)) {
    cpu->setToolTip(
        "CPU time the op's threads got while they worked for it, per unit of that time. Under "
        "70%, its workers waited for a core: other programs on the machine, or more threads "
        "than cores.");
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
    setColumnCount(kColumnCount);
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
    setItem(row, kParallelism, Number(s.parallelism, 1));
    setItem(row, kElementsPerS, Number(s.elements_per_s, 1));
    setItem(row, kSelfUs, Number(s.self_ns_per_element / 1e3, 1));
    setItem(row, kBusy, Number(100 * s.busy_fraction, 0));
    setItem(row, kWaiting, Number(100 * s.waiting_input_fraction, 0));
    setItem(row, kBlocked, Number(100 * s.blocked_output_fraction, 0));
    setItem(row, kBufferFill,
            s.asynchronous && s.buffer_size > 0 ? Number(100 * s.buffer_fill, 0)
                                                : new QTableWidgetItem(""));
    setItem(row, kCausedWait, Number(100 * s.caused_wait_share, 0));
    setItem(row, kCpuShare,
            s.cpu_share >= 0 ? Number(100 * s.cpu_share, 0) : new QTableWidgetItem(""));
  }
  // Keep the user's sort across refreshes; pipeline order until there is one.
  if (!user_sorted_) horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  setSortingEnabled(true);
  if (user_sorted_ && sort_column >= 0 && sort_column < kColumnCount) sortItems(sort_column, order);
}

}  // namespace pipescope::ui
