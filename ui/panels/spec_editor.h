#pragma once
// A pipeline spec's text editor: monospace, wrapped at the editor's width (a narrow dock
// never needs a horizontal scroll bar), line numbers in a gutter, pbtxt highlighting, and
// an error shown at its line (the line tinted red, the message in the gutter's tooltip).

#include <QPlainTextEdit>
#include <QString>

namespace pipescope::ui {

class SpecEditor : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit SpecEditor(QWidget* parent = nullptr);

  // Marks `line` (1-based) as the error's; 0 clears the mark. Editing clears it too.
  void MarkError(int line, const QString& message);
  int error_line() const { return error_line_; }
  // The line of "SOURCE:LINE[:COLUMN]: ..." in a parser's or validator's message, or 0.
  static int ErrorLineOf(const QString& message, const QString& source);

  // The gutter's width for the current number of lines.
  int GutterWidth() const;

 protected:
  void resizeEvent(QResizeEvent* e) override;
  void changeEvent(QEvent* e) override;

 private:
  class Gutter;
  void FitGutter();
  void PaintGutter(QPaintEvent* e);
  void UpdateSelections();

  Gutter* gutter_;
  int error_line_ = 0;
  QString error_message_;
};

}  // namespace pipescope::ui
