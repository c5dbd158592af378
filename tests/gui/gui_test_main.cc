// The GUI tests' main: a QApplication (under xvfb-run in ctest) and settings of their own,
// so that a developer's recent files and window layout are neither used nor changed.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>

#include "ui/gl_format.h"

int main(int argc, char** argv) {
  pipescope::ui::SetDefaultGlFormat();
  QApplication app(argc, argv);
  QApplication::setOrganizationName("PipescopeTests");
  QApplication::setApplicationName("PipescopeTests");
  QSettings().clear();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
