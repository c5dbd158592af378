#pragma once
// The Notes dock: the notes pinned to times or ranges of the trace, in time order.
// Double-click (or Enter) shows a note's time on the timeline; Delete removes it.

#include <QListWidget>
#include <vector>

#include "instrumentation/record/trace_sink.h"

namespace pipescope::ui {

class NotesPanel : public QListWidget {
  Q_OBJECT
 public:
  explicit NotesPanel(QWidget* parent = nullptr);
  void ShowNotes(const std::vector<record::AnnotationDef>& notes);

 signals:
  void NoteActivated(qint64 start_ns, qint64 end_ns);
  void NoteDeleteRequested(int index);  // index into the model's annotations

 protected:
  void keyPressEvent(QKeyEvent* e) override;
};

}  // namespace pipescope::ui
