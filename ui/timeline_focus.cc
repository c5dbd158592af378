#include "ui/timeline_focus.h"

#include <QDockWidget>

namespace pipescope::ui {

void TimelineFocus::Set(bool on) {
  if (on == this->on()) return;
  if (on) {
    hidden_layout_ = window_->saveState();
    for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) dock->hide();
  } else {
    const QByteArray layout = hidden_layout_;
    hidden_layout_.clear();
    window_->restoreState(layout);
  }
}

}  // namespace pipescope::ui
