#include "ui/panels/notes_panel.h"

#include <QKeyEvent>

#include "ui/timeline/time_axis.h"

namespace pipescope::ui {

NotesPanel::NotesPanel(QWidget* parent) : QListWidget(parent) {
  setObjectName("notes");
  setWordWrap(true);
  connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    emit NoteActivated(item->data(Qt::UserRole + 1).toLongLong(),
                       item->data(Qt::UserRole + 2).toLongLong());
  });
}

void NotesPanel::ShowNotes(const std::vector<record::AnnotationDef>& notes) {
  clear();
  for (size_t i = 0; i < notes.size(); ++i) {
    const auto& n = notes[i];
    QString when = QString::fromStdString(FormatDuration(n.start_ns));
    if (n.end_ns > n.start_ns) when += QString::fromStdString(" to " + FormatDuration(n.end_ns));
    QString text = when + ": " + QString::fromStdString(n.text);
    if (!n.author.empty()) text += "  (" + QString::fromStdString(n.author) + ")";
    auto* item = new QListWidgetItem(text, this);
    item->setData(Qt::UserRole, static_cast<int>(i));
    item->setData(Qt::UserRole + 1, static_cast<qlonglong>(n.start_ns));
    item->setData(Qt::UserRole + 2, static_cast<qlonglong>(n.end_ns));
  }
  if (notes.empty()) {
    auto* hint = new QListWidgetItem("No notes. Right-click the timeline to add one.", this);
    hint->setFlags(Qt::NoItemFlags);
  }
}

void NotesPanel::keyPressEvent(QKeyEvent* e) {
  if ((e->key() == Qt::Key_Delete || e->key() == Qt::Key_Backspace) && currentItem() &&
      currentItem()->flags() != Qt::NoItemFlags) {
    emit NoteDeleteRequested(currentItem()->data(Qt::UserRole).toInt());
    return;
  }
  QListWidget::keyPressEvent(e);
}

}  // namespace pipescope::ui
