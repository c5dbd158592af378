#include "ui/panels/picture_text.h"

#include <QEvent>
#include <QFontDatabase>
#include <QFontMetricsF>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <algorithm>
#include <cmath>

namespace pipescope::ui {
namespace {

bool IsPictureLine(const QTextBlock& b) {
  return b.blockFormat().hasProperty(QTextFormat::BlockCodeFence) ||
         b.blockFormat().nonBreakableLines();
}

// One picture: the code-block lines from `first` up to (not including) `end`.
struct Picture {
  QTextBlock first;
  QTextBlock end;
  QStringList lines;
};

QList<Picture> PicturesOf(const QTextDocument& doc) {
  QList<Picture> pictures;
  for (QTextBlock b = doc.begin(); b.isValid();) {
    if (!IsPictureLine(b)) {
      b = b.next();
      continue;
    }
    Picture p{b, b, {}};
    for (; b.isValid() && IsPictureLine(b); b = b.next()) {
      // A block may hold several lines separated by line separators.
      p.lines += b.text().split(QChar::LineSeparator);
    }
    p.end = b;
    pictures.push_back(p);
  }
  return pictures;
}

}  // namespace

PictureText::PictureText(QWidget* parent) : QTextBrowser(parent) {
  setLineWrapMode(QTextEdit::WidgetWidth);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

void PictureText::ShowMarkdown(const QString& markdown) {
  setMarkdown(markdown);
  fitted_width_ = -1;
  FitPictures();
}

void PictureText::resizeEvent(QResizeEvent* e) {
  QTextBrowser::resizeEvent(e);
  FitPictures();
}

void PictureText::changeEvent(QEvent* e) {
  QTextBrowser::changeEvent(e);
  if (e->type() == QEvent::FontChange) FitPictures();
}

void PictureText::FitPictures() {
  const int width = viewport()->width();
  const qreal text_pt = font().pointSizeF();
  if (width == fitted_width_ && text_pt == fitted_pt_) return;
  fitted_width_ = width;
  fitted_pt_ = text_pt;
  QTextDocument& doc = *document();
  // What a line may use: the viewport less the document's margins on both sides.
  const qreal room = width - 2 * doc.documentMargin() - 2;
  QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  fixed.setPointSizeF(text_pt);
  const QFontMetricsF metrics(fixed);
  QTextCursor cursor(&doc);
  cursor.beginEditBlock();
  for (const Picture& p : PicturesOf(doc)) {
    qreal widest = 0;
    for (const QString& line : p.lines) widest = std::max(widest, metrics.horizontalAdvance(line));
    // Advances scale with the point size; half points keep the glyphs crisp.
    qreal pt = text_pt;
    if (widest > room && widest > 0) pt = std::floor(2 * text_pt * room / widest) / 2;
    const bool wraps = pt < kSmallestPicturePt;
    pt = std::max(pt, kSmallestPicturePt);
    QTextCharFormat chars;
    chars.setFont(fixed, QTextCharFormat::FontPropertiesSpecifiedOnly);
    chars.setFontPointSize(pt);
    for (QTextBlock b = p.first; b != p.end; b = b.next()) {
      QTextBlockFormat block = b.blockFormat();
      block.setNonBreakableLines(!wraps);
      cursor.setPosition(b.position());
      cursor.setBlockFormat(block);
      cursor.setPosition(b.position() + b.length() - 1, QTextCursor::KeepAnchor);
      cursor.mergeCharFormat(chars);
    }
  }
  cursor.endEditBlock();
}

QList<qreal> PictureText::PictureSizes() const {
  QList<qreal> sizes;
  for (const Picture& p : PicturesOf(*document())) {
    sizes.push_back(QTextCursor(p.first).charFormat().fontPointSize());
  }
  return sizes;
}

}  // namespace pipescope::ui
