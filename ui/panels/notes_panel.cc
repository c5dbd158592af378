#include "ui/panels/notes_panel.h"

#include <QInputDialog>
#include <QKeyEvent>
#include <QSettings>
#include <algorithm>

#include "ui/timeline/time_axis.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/trace_document.h"

namespace pipescope::ui {

NotesPanel::NotesPanel(TraceDocument* document, TimelineWidget* timeline, QWidget* parent)
    : QListWidget(parent), document_(document), timeline_(timeline) {
  setObjectName("notes");
  setWordWrap(true);
  connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    const int64_t t0 = item->data(Qt::UserRole + 1).toLongLong();
    const int64_t t1 = item->data(Qt::UserRole + 2).toLongLong();
    const int64_t pad = std::max<int64_t>((t1 - t0) / 4, 50'000'000);
    timeline_->SetFollowing(false);
    timeline_->SetView(t0 - pad, t1 + pad);
  });
  connect(document_, &TraceDocument::Opened, this, &NotesPanel::ShowNotes);
  connect(document_, &TraceDocument::NotesChanged, this, [this] {
    ShowNotes();
    timeline_->update();
  });
  connect(timeline_, &TimelineWidget::NoteRequested, this,
          [this](qint64 t0, qint64 t1) { RequestNote(t0, t1); });
  ShowNotes();
}

void NotesPanel::AddNote(int64_t t0, int64_t t1, const QString& text) {
  const QString author = QSettings().value("user/name", qEnvironmentVariable("USER")).toString();
  document_->AddNote({t0, std::max(t0, t1), text.toStdString(), author.toStdString()});
}

void NotesPanel::RequestNote(int64_t t0, int64_t t1) {
  const QString at = t1 > t0
                         ? QString("A note on the range %1 to %2:")
                               .arg(QString::fromStdString(FormatDuration(t0)),
                                    QString::fromStdString(FormatDuration(t1)))
                         : QString("A note at %1:").arg(QString::fromStdString(FormatDuration(t0)));
  bool ok = false;
  const QString text = QInputDialog::getMultiLineText(this, "Add a note", at, QString(), &ok);
  if (ok && !text.trimmed().isEmpty()) AddNote(t0, t1, text.trimmed());
}

void NotesPanel::ShowNotes() {
  clear();
  const std::vector<record::AnnotationDef> notes = document_->notes();
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
    document_->RemoveNote(static_cast<size_t>(currentItem()->data(Qt::UserRole).toInt()));
    return;
  }
  QListWidget::keyPressEvent(e);
}

}  // namespace pipescope::ui
