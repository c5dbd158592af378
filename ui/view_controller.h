#pragma once
// How the main window is laid out and looks (the View menu): the docks shown, the theme,
// presenter mode for projectors, Timeline Only, the timeline's zoom and follow, the
// lessons and the search box. The theme and presenter mode are remembered between
// sessions.

#include <QByteArray>
#include <QObject>

#include "ui/timeline_focus.h"
#include "ui/window_style.h"

class QAction;
class QLineEdit;
class QMainWindow;
class QMenu;

namespace pipescope::ui {

class TimelineWidget;

class ViewController : public QObject {
  Q_OBJECT
 public:
  ViewController(QMainWindow* window, TimelineWidget* timeline);

  // Fills the View menu (the docks existing now are listed); `search` gets Find's focus.
  void BuildMenu(QMenu* view, QLineEdit* search);
  // The theme and presenter mode of the last session.
  void RestoreSettings();

  // Presenter mode, for projectors: everything larger, high contrast, only the timeline,
  // the verdict and the lessons shown.
  void SetPresenterMode(bool on);
  bool presenter_mode() const { return presenter_.on(); }
  // Every dock hidden (the timeline has the whole window) or the layout it hid brought back.
  void SetTimelineOnly(bool on);
  bool timeline_only() const { return focus_.on(); }
  void SetDarkTheme(bool dark);
  // The dock layout worth keeping at exit: the one presenter mode or Timeline Only hid.
  QByteArray LayoutToKeep() const;

 private:
  QMainWindow* window_;
  TimelineWidget* timeline_;
  TimelineFocus focus_;
  PresenterMode presenter_;
  QAction* dark_ = nullptr;
  QAction* presenter_action_ = nullptr;
  QAction* timeline_only_ = nullptr;
};

}  // namespace pipescope::ui
