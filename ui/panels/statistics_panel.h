#pragma once
// The Statistics dock: one row per op from the analysis of a time range (the whole trace,
// the newest seconds of a live run, or the user's selection), sortable by any column;
// pipeline order until the user sorts. An imported trace gets one row per span name.

#include <QTableWidget>
#include <string>

#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/span_statistics.h"

namespace pipescope::ui {

class StatisticsPanel : public QTableWidget {
  Q_OBJECT
 public:
  explicit StatisticsPanel(QWidget* parent = nullptr);
  void ShowAnalysis(const trace::RangeAnalysis& analysis);
  // An imported trace: its span names by total time (own time, count, category), device
  // work marked; the op columns do not fit such a trace.
  void ShowSpanStatistics(const trace::SpanStatistics& spans);

  enum NameColumn : int { kName, kCategory, kCount, kTotalMs, kOwnMs, kWhere, kNameColumnCount };
  static constexpr int kMaxNameRows = 5000;

  // The op rows' columns: the op and its kind, then the figures of session::StageFigureTable
  // that the GUI shows, in its order.
  enum Column : int { kOp, kKind, kFirstFigure };
  static int OpColumnCount();

 private:
  void SetOpHeaders();
  // Headers for op rows or name rows, set when the other kind was shown.
  void SetMode(bool names);
  bool user_sorted_ = false;  // pipeline order until the user clicks a column
  bool names_ = false;
};

}  // namespace pipescope::ui
