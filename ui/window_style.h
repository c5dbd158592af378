#pragma once
// How the application looks: the dark or light theme, and presenter mode's large, high-
// contrast type for projectors (which hides everything but the timeline, the verdict and
// the lessons, and brings the layout back after).

#include <QByteArray>
#include <QFont>

class QMainWindow;

namespace pipescope::ui {

class TimelineWidget;

// Fusion with a dark palette, or its standard light one, for the whole application.
void ApplyTheme(bool dark);

class PresenterMode {
 public:
  PresenterMode(QMainWindow* window, TimelineWidget* timeline)
      : window_(window), timeline_(timeline) {}
  bool on() const { return on_; }
  // Turning it off restores the font, the theme `dark` and the layout from before.
  void Set(bool on, bool dark);
  // The dock layout to keep at exit: the one from before presenter mode while it is on.
  QByteArray LayoutBefore() const { return on_ ? layout_before_ : QByteArray(); }

 private:
  QMainWindow* window_;
  TimelineWidget* timeline_;
  bool on_ = false;
  QFont normal_font_;
  QByteArray layout_before_;
};

}  // namespace pipescope::ui
