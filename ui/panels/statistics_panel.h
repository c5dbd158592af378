#pragma once
// The Statistics dock: one row per op from the analysis of a time range (the whole trace,
// the newest seconds of a live run, or the user's selection), sortable by any column;
// pipeline order until the user sorts.

#include <QTableWidget>

#include "instrumentation/trace/analysis.h"

namespace pipescope::ui {

class StatisticsPanel : public QTableWidget {
  Q_OBJECT
 public:
  explicit StatisticsPanel(QWidget* parent = nullptr);
  void ShowAnalysis(const trace::RangeAnalysis& analysis);

  // Column of each figure (tests read cells by these).
  enum Column : int {
    kOp,
    kKind,
    kParallelism,
    kElementsPerS,
    kSelfUs,
    kBusy,
    kWaiting,
    kBlocked,
    kBufferFill,
    kCausedWait,
    kColumnCount
  };

 private:
  bool user_sorted_ = false;  // pipeline order until the user clicks a column
};

}  // namespace pipescope::ui
