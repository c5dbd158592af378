#include "unanswered_dialog_watch.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QDateTime>
#include <QDialog>
#include <QMessageBox>
#include <QProgressDialog>

namespace pipescope::ui {
namespace {

constexpr int kLookEveryMs = 500;

std::string Describe(QWidget* dialog) {
  std::string text = "\"" + dialog->windowTitle().toStdString() + "\"";
  if (auto* box = qobject_cast<QMessageBox*>(dialog)) {
    text += ": " + box->text().toStdString();
    if (!box->informativeText().isEmpty()) text += " " + box->informativeText().toStdString();
  }
  return text + " (" + dialog->metaObject()->className() + ")";
}

}  // namespace

UnansweredDialogWatch::UnansweredDialogWatch(int patience_ms, QObject* parent)
    : QObject(parent), patience_ms_(patience_ms) {
  // A modal dialog's exec() runs an event loop of its own: the timer fires inside it.
  connect(&timer_, &QTimer::timeout, this, &UnansweredDialogWatch::Look);
  timer_.start(kLookEveryMs);
}

void UnansweredDialogWatch::Look() {
  QWidget* modal = QApplication::activeModalWidget();
  if (modal == nullptr || qobject_cast<QProgressDialog*>(modal) != nullptr) {
    seen_ = nullptr;
    return;
  }
  const qint64 now = QDateTime::currentMSecsSinceEpoch();
  if (modal != seen_) {
    seen_ = modal;
    seen_since_ms_ = now;
    return;
  }
  if (now - seen_since_ms_ < patience_ms_) return;
  ++reported_;
  ADD_FAILURE() << "a dialog nobody answered for " << patience_ms_ / 1000
                << " s, closed by the test harness: " << Describe(modal);
  seen_ = nullptr;
  if (auto* dialog = qobject_cast<QDialog*>(modal)) {
    dialog->reject();
  } else {
    modal->close();
  }
}

}  // namespace pipescope::ui
