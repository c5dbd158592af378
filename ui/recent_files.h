#pragma once
// File > Open Recent: the last eight files opened or saved, newest first, kept between
// sessions (QSettings "recent_files").

#include <QObject>
#include <QString>
#include <functional>

class QMenu;

namespace pipescope::ui {

class RecentFiles : public QObject {
  Q_OBJECT
 public:
  // Fills `menu`; choosing an entry calls `open` with its path.
  RecentFiles(QMenu* menu, std::function<void(const QString&)> open);
  // Puts `path` first (once).
  void Remember(const QString& path);

 private:
  void Fill();

  static constexpr int kMax = 8;
  QMenu* menu_;
  std::function<void(const QString&)> open_;
};

}  // namespace pipescope::ui
