#pragma once
// Long work behind a modal progress dialog with Cancel, said once for every window that
// does some: work on the GUI thread that reports the share done (opening and saving
// traces), and work on another thread waited for (Compare, the grid of knobs).

#include <QApplication>
#include <QProgressDialog>
#include <chrono>
#include <functional>
#include <future>

namespace pipescope::ui {

class ModalProgress {
 public:
  // `maximum` 0: a busy bar. The dialog shows once the work has taken `show_after_ms`.
  ModalProgress(QWidget* parent, const QString& title, const QString& label, int maximum = 1000,
                int show_after_ms = 300)
      : dialog_(label, "Cancel", 0, maximum, parent) {
    if (!title.isEmpty()) dialog_.setWindowTitle(title);
    dialog_.setWindowModality(Qt::WindowModal);
    dialog_.setMinimumDuration(show_after_ms);
  }
  ~ModalProgress() { dialog_.reset(); }
  ModalProgress(const ModalProgress&) = delete;
  ModalProgress& operator=(const ModalProgress&) = delete;

  // For work on the GUI thread: the share done (0 to 1) on the bar, the GUI kept
  // responsive; false once Cancel was pressed (the work's progress callback returns it).
  bool Report(double share) {
    dialog_.setValue(static_cast<int>(share * dialog_.maximum()));
    QApplication::processEvents();
    return !dialog_.wasCanceled();
  }

  // For work on another thread: waits for `work`, `update` refreshing the dialog every
  // 50 ms; Cancel calls `cancel`, and the wait goes on until the work has stopped.
  template <class T>
  T Await(std::future<T>& work, const std::function<void(QProgressDialog&)>& update,
          const std::function<void()>& cancel) {
    while (work.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      update(dialog_);
      QApplication::processEvents();
      if (dialog_.wasCanceled()) cancel();
    }
    dialog_.reset();
    return work.get();
  }

  void Close() { dialog_.reset(); }

 private:
  QProgressDialog dialog_;
};

}  // namespace pipescope::ui
