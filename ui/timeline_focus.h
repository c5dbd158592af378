#pragma once
// View > Timeline Only (F11): every dock hidden so that the timeline has the whole window
// (beside a lesson's text and pipeline it has 41% of a 1280 px window; both must stay
// readable side by side, so the lesson layout cannot give it more), and the exact layout
// it hid brought back when turned off.

#include <QByteArray>
#include <QMainWindow>

namespace pipescope::ui {

class TimelineFocus {
 public:
  explicit TimelineFocus(QMainWindow* window) : window_(window) {}
  void Set(bool on);
  bool on() const { return !hidden_layout_.isEmpty(); }
  // The layout worth keeping at exit: the one focus hid while it is on.
  QByteArray LayoutToKeep() const { return on() ? hidden_layout_ : window_->saveState(); }

 private:
  QMainWindow* window_;
  QByteArray hidden_layout_;  // empty when off
};

}  // namespace pipescope::ui
