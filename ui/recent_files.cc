#include "ui/recent_files.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <utility>

namespace pipescope::ui {

RecentFiles::RecentFiles(QMenu* menu, std::function<void(const QString&)> open)
    : QObject(menu), menu_(menu), open_(std::move(open)) {
  Fill();
}

void RecentFiles::Remember(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("recent_files").toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kMax) recent.removeLast();
  settings.setValue("recent_files", recent);
  Fill();
}

void RecentFiles::Fill() {
  menu_->clear();
  const QStringList recent = QSettings().value("recent_files").toStringList();
  for (const QString& path : recent) {
    menu_->addAction(path, this, [this, path] { open_(path); });
  }
  menu_->setEnabled(!recent.isEmpty());
}

}  // namespace pipescope::ui
