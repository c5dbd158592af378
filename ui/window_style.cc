#include "ui/window_style.h"

#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QToolBar>

#include "ui/main_docks.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {

void ApplyTheme(bool dark) {
  QApplication::setStyle(QStyleFactory::create("Fusion"));
  QPalette p = QApplication::style()->standardPalette();
  if (dark) {
    p.setColor(QPalette::Window, QColor(37, 37, 42));
    p.setColor(QPalette::WindowText, QColor(225, 225, 225));
    p.setColor(QPalette::Base, QColor(28, 28, 32));
    p.setColor(QPalette::AlternateBase, QColor(45, 45, 50));
    p.setColor(QPalette::Text, QColor(225, 225, 225));
    p.setColor(QPalette::Button, QColor(50, 50, 56));
    p.setColor(QPalette::ButtonText, QColor(225, 225, 225));
    p.setColor(QPalette::Highlight, QColor(60, 110, 200));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, QColor(50, 50, 56));
    p.setColor(QPalette::ToolTipText, QColor(225, 225, 225));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(130, 130, 130));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(130, 130, 130));
  }
  QApplication::setPalette(p);
}

void PresenterMode::Set(bool on, bool dark) {
  if (on == on_) return;
  on_ = on;
  constexpr float kScale = 1.6f;
  if (on) {
    normal_font_ = QApplication::font();
    layout_before_ = window_->saveState();
    QFont big = normal_font_;
    big.setPointSizeF(normal_font_.pointSizeF() * kScale);
    QApplication::setFont(big);
    // High contrast: pure black and white, a saturated highlight.
    QPalette p = QApplication::palette();
    for (auto role :
         {QPalette::Window, QPalette::Base, QPalette::Button, QPalette::AlternateBase}) {
      p.setColor(role, Qt::black);
    }
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
      p.setColor(role, Qt::white);
    }
    p.setColor(QPalette::Highlight, QColor(255, 200, 0));
    p.setColor(QPalette::HighlightedText, Qt::black);
    QApplication::setPalette(p);
    // Less chrome: the timeline, the verdict and the lessons only.
    for (const char* name : {"statistics", "pipeline", "notes"}) {
      if (auto* d = window_->findChild<QDockWidget*>(name)) d->hide();
    }
    window_->statusBar()->hide();
    for (auto* bar : window_->findChildren<QToolBar*>()) bar->hide();
    FitDocksForPresenter(window_);
    if (window_->findChild<QDockWidget*>("lesson_pipeline")->isVisible())
      ArrangeLessonDocks(window_, true);
    timeline_->SetUiScale(kScale);
  } else {
    QApplication::setFont(normal_font_);
    ApplyTheme(dark);
    if (!layout_before_.isEmpty()) window_->restoreState(layout_before_);
    window_->statusBar()->show();
    for (auto* bar : window_->findChildren<QToolBar*>()) bar->show();
    timeline_->SetUiScale(1.0f);
  }
}

}  // namespace pipescope::ui
