#pragma once
// The Source dock: the Python file a pipeline was read from (File > Open of a .py), beside
// the Pipeline dock that runs it, with import-code's notes under it. A note shows its line
// in the source when clicked: what the code left to run time and the setting that fills it.

#include <QListWidget>
#include <QPlainTextEdit>
#include <QWidget>
#include <vector>

#include "app/code/code_values.h"

namespace pipescope::ui {

class CodePanel : public QWidget {
  Q_OBJECT
 public:
  explicit CodePanel(QWidget* parent = nullptr);
  void ShowCode(const QString& file_name, const QString& source,
                const std::vector<code::CodeNote>& notes);
  QString source_text() const { return source_->toPlainText(); }
  int note_count() const { return notes_->count(); }
  // Puts the cursor on `line` (1-based) and tints it.
  void ShowLine(int line);
  int shown_line() const { return shown_line_; }

 private:
  QPlainTextEdit* source_;
  QListWidget* notes_;
  int shown_line_ = 0;
};

}  // namespace pipescope::ui
