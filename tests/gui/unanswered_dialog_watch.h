#pragma once
// A GUI test that meets a dialog it did not expect (a message box saying a file is missing,
// say) would wait for a click until ctest's timeout kills the binary, and every later test
// in it would go unrun. The watch turns that into a failure of the test that opened it:
// a modal dialog still open after `patience_ms` is reported with its title and text, then
// closed. Progress dialogs are left alone: they close when their work ends.
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QWidget>

namespace pipescope::ui {

class UnansweredDialogWatch : public QObject {
 public:
  explicit UnansweredDialogWatch(int patience_ms, QObject* parent = nullptr);
  int reported() const { return reported_; }

 private:
  void Look();

  int patience_ms_;
  QTimer timer_;
  QPointer<QWidget> seen_;  // the modal dialog open at the last look
  qint64 seen_since_ms_ = 0;
  int reported_ = 0;
};

}  // namespace pipescope::ui
