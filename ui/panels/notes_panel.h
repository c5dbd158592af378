#pragma once
// The Notes dock: the notes pinned to times or ranges of the shown trace, in time order.
// Double-click (or Enter) shows a note's time on the timeline; Delete removes it; the
// timeline's right-button menu asks for a new one. Notes live in the trace document, so
// they are saved with the trace.

#include <QListWidget>
#include <cstdint>

namespace pipescope::ui {

class TimelineWidget;
class TraceDocument;

class NotesPanel : public QListWidget {
  Q_OBJECT
 public:
  NotesPanel(TraceDocument* document, TimelineWidget* timeline, QWidget* parent = nullptr);
  // Pins a note to [t0, t1] (t0 == t1: one instant), by the user named in the settings
  // ("user/name", else $USER).
  void AddNote(int64_t t0, int64_t t1, const QString& text);

 protected:
  void keyPressEvent(QKeyEvent* e) override;

 private:
  void ShowNotes();
  // Asks for a note's text in a dialog, and pins it.
  void RequestNote(int64_t t0, int64_t t1);

  TraceDocument* document_;
  TimelineWidget* timeline_;
};

}  // namespace pipescope::ui
