#pragma once
// The Search toolbar: typing highlights the timeline's lanes and spans whose names hold
// the text; Enter (or F3) goes to the next matching span, Shift+Enter (Shift+F3) to the
// previous one. What was found is said in the status bar.

class QLineEdit;
class QMainWindow;

namespace pipescope::ui {

class TimelineWidget;

QLineEdit* AddSearchBar(QMainWindow* window, TimelineWidget* timeline);

}  // namespace pipescope::ui
