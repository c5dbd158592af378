#pragma once
// The main window: the timeline in the centre, the Statistics and Verdict docks, menus,
// a status bar with steps/s, input wait and device busy, and recent files. Opens a saved
// trace (.pstrace) or runs a pipeline spec (.pbtxt) for a few seconds and shows its trace.

#include <QMainWindow>
#include <memory>

#include "instrumentation/trace/model.h"

class QLabel;
class QMenu;
class QTableWidget;

namespace pipescope::ui {

class TimelineWidget;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  // Opens a .pstrace, or runs a .pbtxt; errors are shown in a message box. Returns
  // whether a trace is now shown.
  bool OpenFile(const QString& path);
  // How long opening a spec runs it before showing its trace (default 5 s).
  void set_run_seconds(double seconds) { run_seconds_ = seconds; }
  void ShowModel(std::shared_ptr<const trace::Model> model, const QString& title);
  TimelineWidget* timeline() const { return timeline_; }
  QTableWidget* statistics() const { return statistics_; }
  QString verdict_text() const;

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void closeEvent(QCloseEvent* e) override;

 private:
  void BuildMenus();
  void OpenDialog();
  void RememberRecent(const QString& path);
  void RefreshRecentMenu();
  bool OpenTrace(const QString& path);
  bool RunSpec(const QString& path);

  TimelineWidget* timeline_;
  QTableWidget* statistics_;
  QLabel* verdict_;
  QLabel* status_;
  QMenu* recent_menu_ = nullptr;
  std::shared_ptr<const trace::Model> model_;
  double run_seconds_ = 5;
};

}  // namespace pipescope::ui
