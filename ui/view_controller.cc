#include "ui/view_controller.h"

#include <QAction>
#include <QDockWidget>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QSettings>

#include "ui/main_docks.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

bool DarkSetting() { return QSettings().value("view/dark", true).toBool(); }

}  // namespace

ViewController::ViewController(QMainWindow* window, TimelineWidget* timeline)
    : QObject(window),
      window_(window),
      timeline_(timeline),
      focus_(window),
      presenter_(window, timeline) {}

void ViewController::BuildMenu(QMenu* view, QLineEdit* search) {
  QMenu* docks = view->addMenu("&Docks");
  for (QDockWidget* dock : window_->findChildren<QDockWidget*>())
    docks->addAction(dock->toggleViewAction());
  dark_ = view->addAction("&Dark Theme", this, [this](bool on) { SetDarkTheme(on); });
  dark_->setCheckable(true);
  dark_->setChecked(DarkSetting());
  view->addSeparator();
  view->addAction("Zoom to &Fit", QKeySequence(Qt::Key_F), timeline_, &TimelineWidget::ZoomToFit);
  view->addAction("Zoom to &Selection", QKeySequence(Qt::Key_Z), timeline_,
                  &TimelineWidget::ZoomToSelection);
  view->addAction("F&ollow the Live Run", QKeySequence(Qt::Key_End), timeline_,
                  [this] { timeline_->SetFollowing(true); });
  view->addSeparator();
  view->addAction("&Lessons", QKeySequence(Qt::CTRL | Qt::Key_L), this,
                  [this] { ShowLessonsDock(window_, presenter_.on()); });
  presenter_action_ =
      view->addAction("&Presenter Mode", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), this,
                      [this](bool on) { SetPresenterMode(on); });
  presenter_action_->setCheckable(true);
  presenter_action_->setChecked(presenter_.on());
  timeline_only_ = view->addAction("&Timeline Only", QKeySequence(Qt::Key_F11), this,
                                   [this](bool on) { SetTimelineOnly(on); });
  timeline_only_->setCheckable(true);
  timeline_only_->setToolTip("Hides every dock so that the timeline has the whole window");
  view->addAction("Fi&nd...", QKeySequence::Find, this, [search] {
    search->setFocus();
    search->selectAll();
  });
}

void ViewController::RestoreSettings() {
  SetDarkTheme(DarkSetting());
  if (QSettings().value("view/presenter", false).toBool()) SetPresenterMode(true);
}

void ViewController::SetTimelineOnly(bool on) {
  focus_.Set(on);
  if (timeline_only_) timeline_only_->setChecked(focus_.on());
}

void ViewController::SetPresenterMode(bool on) {
  if (on == presenter_.on()) return;
  SetTimelineOnly(false);  // presenter mode keeps the layout from before it
  presenter_.Set(on, DarkSetting());
  if (presenter_action_) presenter_action_->setChecked(on);
  QSettings().setValue("view/presenter", on);
}

void ViewController::SetDarkTheme(bool dark) {
  ApplyTheme(dark);
  timeline_->SetDarkTheme(dark);
  if (dark_) dark_->setChecked(dark);
  QSettings().setValue("view/dark", dark);
}

QByteArray ViewController::LayoutToKeep() const {
  // Presenter mode hides docks for the projector: keep the layout from before it.
  const QByteArray before_presenter = presenter_.LayoutBefore();
  return !before_presenter.isEmpty() ? before_presenter : focus_.LayoutToKeep();
}

}  // namespace pipescope::ui
