#include "ui/search_bar.h"

#include <QApplication>
#include <QLineEdit>
#include <QMainWindow>
#include <QShortcut>
#include <QStatusBar>
#include <QToolBar>

#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {

QLineEdit* AddSearchBar(QMainWindow* window, TimelineWidget* timeline) {
  auto* bar = window->addToolBar("Search");
  bar->setObjectName("search");
  auto* search = new QLineEdit(bar);
  search->setPlaceholderText("Search ops, events and span names (Ctrl+F)");
  search->setClearButtonEnabled(true);
  search->setMaximumWidth(320);
  bar->addWidget(search);
  auto next_match = [window, timeline, search](bool backward) {
    if (search->text().trimmed().isEmpty()) return;
    const QString found = timeline->NextMatch(backward);
    window->statusBar()->showMessage(found.isEmpty()
                                         ? QString("no span matches \"%1\"").arg(search->text())
                                         : QString("match: %1").arg(found),
                                     5000);
  };
  QObject::connect(search, &QLineEdit::returnPressed, search, [next_match] {
    next_match(QApplication::keyboardModifiers() & Qt::ShiftModifier);
  });
  auto* next = new QShortcut(QKeySequence(Qt::Key_F3), window);
  QObject::connect(next, &QShortcut::activated, search, [next_match] { next_match(false); });
  auto* previous = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3), window);
  QObject::connect(previous, &QShortcut::activated, search, [next_match] { next_match(true); });
  QObject::connect(
      search, &QLineEdit::textChanged, search, [window, timeline](const QString& text) {
        const int matches = timeline->SetSearch(text);
        if (text.isEmpty()) return;
        const int64_t spans = timeline->span_matches();
        window->statusBar()->showMessage(
            spans > 0 ? QString("%1 spans named like that, on %2 lanes").arg(spans).arg(matches)
                      : QString("%1 lanes match").arg(matches),
            5000);
      });
  return search;
}

}  // namespace pipescope::ui
