#pragma once
// The shown trace's files (the File menu's trace entries): opening one trace, or one per
// host into one view; saving with its notes; exporting for Perfetto or Chrome; the open,
// save and export dialogs with their remembered folders and filters; and the question
// before unsaved notes would be lost. Long reads and writes show progress with Cancel.

#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>

#include "engine/core/status.h"
#include "instrumentation/trace/import/host_merge.h"
#include "instrumentation/trace/model.h"

class QWidget;

namespace pipescope::ui {

class TraceDocument;

// What the verdict says of several hosts' (or workers') traces merged into one: which host
// waits most for input, then each host's steps, input wait and device busy.
QString HostsVerdict(const trace::MergedHosts& merged);

class DocumentFiles : public QObject {
  Q_OBJECT
 public:
  // `before_write` runs before the document's model is written (it stops a live run).
  DocumentFiles(QWidget* window, TraceDocument* document, std::function<void()> before_write);

  // A trace read from `path` (null: cancelled, or failed and said in a message box).
  std::shared_ptr<trace::Model> ReadTrace(const QString& path);
  // Several hosts' traces of one job merged on one clock; `verdict` gets each host's
  // figures and the one to look at.
  std::shared_ptr<trace::Model> ReadHosts(const QStringList& paths, QString* verdict);

  // Writes the shown trace, with its notes, to `path`.
  bool SaveTrace(const QString& path);
  // Writes the shown trace as Perfetto (.perfetto-trace, .pftrace) or Chrome JSON (.json,
  // .json.gz), by the extension.
  bool ExportTrace(const QString& path);
  // Whether what is shown may be replaced: unsaved notes are saved or given up first.
  bool ConfirmDiscardNotes();

  // The dialogs: a path chosen to open (empty: none), several hosts' traces, Save As and
  // Export with the folder and filter chosen last time.
  QString OpenDialog();
  QStringList OpenHostsDialog();
  void SaveDialog(bool run_is_live);
  void ExportDialog();

 signals:
  void Message(const QString& text, int timeout_ms);
  void Saved(const QString& path);

 private:
  using Writer = engine::Status (*)(const trace::Model&, const std::string&,
                                    const std::function<bool(double)>&);
  // Writes the shown model to `path` with `writer` (after before_write), with progress and
  // Cancel ("Saving NAME..."); a failure other than a cancel is shown under `failure`.
  bool Write(const QString& path, const QString& doing, const QString& failure, Writer writer);

  QWidget* window_;
  TraceDocument* document_;
  std::function<void()> before_write_;
};

}  // namespace pipescope::ui
