#include "ui/panels/spec_editor.h"

#include <QPainter>
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextBlock>

namespace pipescope::ui {
namespace {

// pbtxt: field names (before ':' or '{'), strings, numbers with or without a unit,
// AUTOTUNE and the booleans, and '#' comments.
class PbtxtHighlighter : public QSyntaxHighlighter {
 public:
  explicit PbtxtHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
    field_.setForeground(QColor(110, 170, 240));
    string_.setForeground(QColor(220, 160, 90));
    number_.setForeground(QColor(150, 210, 130));
    keyword_.setForeground(QColor(200, 130, 220));
    keyword_.setFontWeight(QFont::Bold);
    comment_.setForeground(QColor(130, 130, 130));
    comment_.setFontItalic(true);
  }

 protected:
  void highlightBlock(const QString& text) override {
    static const QRegularExpression kField(R"(\b[A-Za-z_][A-Za-z0-9_]*(?=\s*[:{]))");
    static const QRegularExpression kNumber(R"((?<![\w.])-?\d+(\.\d+)?([eE]-?\d+)?\b)");
    static const QRegularExpression kKeyword(R"(\b(AUTOTUNE|true|false)\b)");
    static const QRegularExpression kString(R"("(?:[^"\\]|\\.)*"?)");
    for (const auto& [re, format] : {std::pair{&kField, &field_}, std::pair{&kNumber, &number_},
                                     std::pair{&kKeyword, &keyword_}}) {
      for (auto it = re->globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()),
                  *format);
      }
    }
    // Strings and comments last: what they hold is not a field or a number. A '#' inside a
    // string does not start a comment.
    int comment_at = -1;
    bool in_string = false;
    for (int i = 0; i < text.size() && comment_at < 0; ++i) {
      const QChar c = text[i];
      if (in_string) {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"') {
        in_string = true;
      } else if (c == '#') {
        comment_at = i;
      }
    }
    const QString code = comment_at < 0 ? text : text.left(comment_at);
    for (auto it = kString.globalMatch(code); it.hasNext();) {
      const auto m = it.next();
      setFormat(static_cast<int>(m.capturedStart()), static_cast<int>(m.capturedLength()), string_);
    }
    if (comment_at >= 0)
      setFormat(comment_at, static_cast<int>(text.size()) - comment_at, comment_);
  }

 private:
  QTextCharFormat field_, string_, number_, keyword_, comment_;
};

}  // namespace

class SpecEditor::Gutter : public QWidget {
 public:
  explicit Gutter(SpecEditor* editor) : QWidget(editor), editor_(editor) {}
  QSize sizeHint() const override { return {editor_->GutterWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* e) override { editor_->PaintGutter(e); }
  bool event(QEvent* e) override {
    if (e->type() == QEvent::ToolTip && editor_->error_line_ > 0) {
      setToolTip(QString("Line %1: %2").arg(editor_->error_line_).arg(editor_->error_message_));
    }
    return QWidget::event(e);
  }

 private:
  SpecEditor* editor_;
};

SpecEditor::SpecEditor(QWidget* parent) : QPlainTextEdit(parent), gutter_(new Gutter(this)) {
  QFont mono("Monospace");
  mono.setStyleHint(QFont::TypeWriter);
  setFont(mono);
  setLineWrapMode(QPlainTextEdit::WidgetWidth);
  setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  new PbtxtHighlighter(document());
  connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { FitGutter(); });
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
    if (dy != 0) {
      gutter_->scroll(0, dy);
    } else {
      gutter_->update(0, rect.y(), gutter_->width(), rect.height());
    }
  });
  connect(this, &QPlainTextEdit::textChanged, this, [this] {
    if (error_line_ > 0) MarkError(0, QString());
  });
  FitGutter();
}

int SpecEditor::GutterWidth() const {
  const int digits = static_cast<int>(QString::number(std::max(1, blockCount())).size());
  return 8 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(2, digits);
}

void SpecEditor::resizeEvent(QResizeEvent* e) {
  QPlainTextEdit::resizeEvent(e);
  FitGutter();
}

void SpecEditor::changeEvent(QEvent* e) {
  QPlainTextEdit::changeEvent(e);
  // Presenter mode enlarges the application's font: the gutter widens with the digits.
  if (e->type() == QEvent::FontChange) FitGutter();
}

void SpecEditor::FitGutter() {
  setViewportMargins(GutterWidth(), 0, 0, 0);
  const QRect r = contentsRect();
  gutter_->setGeometry(QRect(r.left(), r.top(), GutterWidth(), r.height()));
}

void SpecEditor::PaintGutter(QPaintEvent* e) {
  QPainter p(gutter_);
  const QPalette& pal = palette();
  p.fillRect(e->rect(), pal.color(QPalette::AlternateBase));
  p.setFont(font());
  QTextBlock block = firstVisibleBlock();
  int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
  while (block.isValid() && top <= e->rect().bottom()) {
    const int height = qRound(blockBoundingRect(block).height());
    if (block.isVisible() && top + height >= e->rect().top()) {
      const int line = block.blockNumber() + 1;
      const bool error = line == error_line_;
      if (error) p.fillRect(0, top, gutter_->width(), height, QColor(200, 60, 60));
      QColor number = pal.color(QPalette::Text);
      number.setAlphaF(0.45f);  // quieter than the text, whatever the palette
      p.setPen(error ? QColor(Qt::white) : number);
      p.drawText(0, top, gutter_->width() - 4, fontMetrics().height(), Qt::AlignRight,
                 QString::number(line));
    }
    block = block.next();
    top += height;
  }
}

void SpecEditor::MarkError(int line, const QString& message) {
  error_line_ = line > 0 && line <= blockCount() ? line : 0;
  error_message_ = error_line_ > 0 ? message : QString();
  UpdateSelections();
  gutter_->update();
  if (error_line_ > 0) {
    // Shown, not moved to: the learner's cursor stays where it was unless the line is
    // off screen.
    const QTextBlock block = document()->findBlockByNumber(error_line_ - 1);
    const QRectF r = blockBoundingGeometry(block).translated(contentOffset());
    if (r.bottom() < 0 || r.top() > viewport()->height()) {
      QTextCursor c(block);
      setTextCursor(c);
      centerCursor();
    }
  }
}

void SpecEditor::UpdateSelections() {
  QList<QTextEdit::ExtraSelection> selections;
  if (error_line_ > 0) {
    QTextEdit::ExtraSelection s;
    s.format.setBackground(QColor(200, 60, 60, 90));
    s.format.setProperty(QTextFormat::FullWidthSelection, true);
    s.format.setToolTip(error_message_);
    s.cursor = QTextCursor(document()->findBlockByNumber(error_line_ - 1));
    selections << s;
  }
  setExtraSelections(selections);
}

int SpecEditor::ErrorLineOf(const QString& message, const QString& source) {
  const QRegularExpression re(QRegularExpression::escape(source) + R"(:(\d+)(?::\d+)?:)");
  const auto m = re.match(message);
  return m.hasMatch() ? m.captured(1).toInt() : 0;
}

}  // namespace pipescope::ui
