#include "ui/panels/code_panel.h"

#include <QFontDatabase>
#include <QSplitter>
#include <QTextBlock>
#include <QVBoxLayout>

namespace pipescope::ui {

CodePanel::CodePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* split = new QSplitter(Qt::Vertical, this);
  source_ = new QPlainTextEdit(split);
  source_->setReadOnly(true);
  source_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  source_->setLineWrapMode(QPlainTextEdit::NoWrap);
  notes_ = new QListWidget(split);
  notes_->setWordWrap(true);
  notes_->setToolTip("What import-code read around the code: click a note to see its line");
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  layout->addWidget(split);
  connect(notes_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (QListWidgetItem* item = notes_->item(row)) ShowLine(item->data(Qt::UserRole).toInt());
  });
}

void CodePanel::ShowCode(const QString& file_name, const QString& source,
                         const std::vector<code::CodeNote>& notes) {
  source_->setPlainText(source);
  source_->setDocumentTitle(file_name);
  notes_->clear();
  for (const code::CodeNote& n : notes) {
    // A note in a module the file imports names that module; the dock shows the file alone.
    const QString file = n.at.file ? QString::fromUtf8(n.at.file) + ":" : QString();
    auto* item = new QListWidgetItem(QString("%1%2:%3  %4")
                                         .arg(file)
                                         .arg(n.at.line)
                                         .arg(n.at.column)
                                         .arg(QString::fromStdString(n.message)),
                                     notes_);
    item->setData(Qt::UserRole, n.at.file ? 0 : n.at.line);
  }
  shown_line_ = 0;
}

void CodePanel::ShowLine(int line) {
  const QTextBlock block = source_->document()->findBlockByNumber(line - 1);
  if (!block.isValid()) return;
  QTextCursor cursor(block);
  source_->setTextCursor(cursor);
  source_->centerCursor();
  QTextEdit::ExtraSelection tint;
  tint.format.setBackground(source_->palette().highlight().color().lighter(160));
  tint.format.setProperty(QTextFormat::FullWidthSelection, true);
  tint.cursor = cursor;
  source_->setExtraSelections({tint});
  shown_line_ = line;
}

}  // namespace pipescope::ui
