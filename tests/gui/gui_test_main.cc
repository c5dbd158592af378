// The GUI tests' main: a QApplication (under xvfb-run in ctest) and settings of their own,
// so that a developer's recent files and window layout are neither used nor changed, and
// a watch over dialogs nobody answers.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>

#include "ui/gl_format.h"
#include "unanswered_dialog_watch.h"

int main(int argc, char** argv) {
  pipescope::ui::SetDefaultGlFormat();
  QApplication app(argc, argv);
  QApplication::setOrganizationName("PipescopeTests");
  QApplication::setApplicationName("PipescopeTests");
  QSettings().clear();
  // A test that meets a dialog nobody expected fails in 20 s, and the rest still run.
  pipescope::ui::UnansweredDialogWatch watch(20'000);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
