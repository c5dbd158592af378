// Wrapped text whose pictures keep their columns: a lesson's explanation draws timelines and
// orderings in fenced code blocks, where a wrapped line breaks the picture apart.
#pragma once

#include <QTextBrowser>

namespace pipescope::ui {

class PictureText : public QTextBrowser {
 public:
  // Below this size a picture wraps rather than shrink further: it is no longer readable.
  static constexpr qreal kSmallestPicturePt = 6.0;

  explicit PictureText(QWidget* parent = nullptr);

  // Shows the markdown and fits its pictures to the current width.
  void ShowMarkdown(const QString& markdown);

  // The point size each picture is drawn at, in document order (for tests).
  QList<qreal> PictureSizes() const;

 protected:
  void resizeEvent(QResizeEvent* e) override;
  void changeEvent(QEvent* e) override;

 private:
  // Each picture (a run of code-block lines) in the fixed font at the text's size, or smaller
  // so that its widest line fits the viewport; text around it wraps as usual.
  void FitPictures();

  int fitted_width_ = -1;
  qreal fitted_pt_ = -1;
};

}  // namespace pipescope::ui
