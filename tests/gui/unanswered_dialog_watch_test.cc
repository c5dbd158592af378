// The GUI tests' watch over dialogs nobody answers (unanswered_dialog_watch.h): a message
// box left open fails the test and is closed, so the binary goes on; a progress dialog
// open as long as its work is left alone.
#include "unanswered_dialog_watch.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <QMessageBox>
#include <QProgressDialog>
#include <QTimer>

namespace pipescope::ui {
namespace {

TEST(UnansweredDialogWatchTest, AMessageBoxNobodyAnswersFailsTheTestAndIsClosed) {
  EXPECT_NONFATAL_FAILURE(
      {
        UnansweredDialogWatch watch(1000);
        QMessageBox box(QMessageBox::Warning, "Cannot open", "no such file: a.tfrecord",
                        QMessageBox::Ok);
        box.exec();  // returns only because the watch closes it
        EXPECT_EQ(watch.reported(), 1);
      },
      "\"Cannot open\": no such file: a.tfrecord");
}

TEST(UnansweredDialogWatchTest, AProgressDialogIsLeftToItsWork) {
  UnansweredDialogWatch watch(1000);
  QProgressDialog progress("Saving", "Cancel", 0, 0);
  QTimer::singleShot(2500, &progress, &QProgressDialog::reject);  // the work ends
  progress.exec();
  EXPECT_EQ(watch.reported(), 0);
}

}  // namespace
}  // namespace pipescope::ui
