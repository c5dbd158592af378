#pragma once
// The Help menu: every key and mouse gesture, by where it works (F1), and About.

class QMenu;
class QWidget;

namespace pipescope::ui {

void FillHelpMenu(QMenu* help, QWidget* window);

}  // namespace pipescope::ui
