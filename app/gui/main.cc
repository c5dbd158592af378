// pipescope: the desktop application. `pipescope [FILE]` opens a trace (.pstrace) or runs a
// pipeline spec (.pbtxt) and shows its timeline, statistics and verdict.
#include <QApplication>

#include "ui/gl_format.h"
#include "ui/main_window.h"

int main(int argc, char** argv) {
  pipescope::ui::SetDefaultGlFormat();
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Pipescope");
  QApplication::setApplicationName("Pipescope");
  pipescope::ui::MainWindow window;
  window.show();
  const QStringList args = QApplication::arguments();
  if (args.size() > 1) window.OpenFile(args.at(1));
  return QApplication::exec();
}
