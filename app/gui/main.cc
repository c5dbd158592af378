// pipescope: the desktop application. `pipescope [FILE]` opens a trace (.pstrace) or runs a
// pipeline spec (.pbtxt) and shows its timeline, statistics and verdict.
#include <QApplication>
#include <QSurfaceFormat>

#include "ui/main_window.h"

int main(int argc, char** argv) {
  // ImGui's OpenGL 3 backend needs a 3.3 core context; it must be the default before
  // QApplication exists.
  QSurfaceFormat format;
  format.setVersion(3, 3);
  format.setProfile(QSurfaceFormat::CoreProfile);
  QSurfaceFormat::setDefaultFormat(format);
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Pipescope");
  QApplication::setApplicationName("Pipescope");
  pipescope::ui::MainWindow window;
  window.show();
  const QStringList args = QApplication::arguments();
  if (args.size() > 1) window.OpenFile(args.at(1));
  return QApplication::exec();
}
