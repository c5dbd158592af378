#include "ui/document_files.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <utility>
#include <vector>

#include "app/session/trace_files.h"
#include "app/session/trace_formats.h"
#include "instrumentation/trace/format/model_writer.h"
#include "instrumentation/trace/import/host_merge.h"
#include "ui/modal_progress.h"
#include "ui/trace_document.h"

namespace pipescope::ui {
namespace {

QString Text(const std::string& s) { return QString::fromStdString(s); }

// "Chrome trace JSON (*.json *.json.gz)".
QString DialogFilter(const session::TraceFormat& f) {
  return QString("%1 (%2)").arg(QString::fromUtf8(f.name), Text(session::DialogPatterns(f)));
}

// "Pipescope trace (*.pstrace);;Chrome trace JSON (*.json *.json.gz)": the trace formats
// Pipescope opens (or, for export, writes besides its own) as file-dialog filters.
QString TraceDialogFilters(bool export_formats) {
  QStringList filters;
  for (const session::TraceFormat& f : session::TraceFormats()) {
    const bool listed =
        export_formats ? f.writes && f.id != session::TraceFormatId::kPstrace : f.opens;
    if (listed) filters << DialogFilter(f);
  }
  return filters.join(";;");
}

// Every opened format's patterns in one: "*.pstrace *.json *.json.gz".
QString AllTracePatterns() {
  QStringList patterns;
  for (const session::TraceFormat& f : session::TraceFormats()) {
    if (f.opens) patterns << Text(session::DialogPatterns(f));
  }
  return patterns.join(' ');
}

}  // namespace

DocumentFiles::DocumentFiles(QWidget* window, TraceDocument* document,
                             std::function<void()> before_write)
    : QObject(window),
      window_(window),
      document_(document),
      before_write_(std::move(before_write)) {}

std::shared_ptr<trace::Model> DocumentFiles::ReadTrace(const QString& path) {
  ModalProgress progress(window_, "", "Opening " + QFileInfo(path).fileName() + "...");
  auto loaded = session::OpenTraceFile(path.toStdString(),
                                       [&](double share) { return progress.Report(share); });
  progress.Close();
  if (!loaded.ok()) {
    if (loaded.status().code() != engine::StatusCode::kCancelled)
      QMessageBox::warning(window_, "Cannot open the trace", Text(loaded.status().message()));
    return nullptr;
  }
  for (const auto& w : loaded->warnings) emit Message(Text(w), 10000);
  return std::move(loaded->model);
}

QString HostsVerdict(const trace::MergedHosts& merged) {
  QString verdict = Text(merged.verdict) + "\n";
  for (const auto& [host, summary] : merged.hosts) {
    verdict += QString("\n%1: %2 steps, input wait %3%, device busy %4%")
                   .arg(Text(host))
                   .arg(summary.steps)
                   .arg(100 * summary.input_wait_fraction, 0, 'f', 0)
                   .arg(100 * summary.device_busy_fraction, 0, 'f', 0);
  }
  return verdict;
}

std::shared_ptr<trace::Model> DocumentFiles::ReadHosts(const QStringList& paths, QString* verdict) {
  ModalProgress progress(window_, "", "Opening " + QString::number(paths.size()) + " traces...");
  std::vector<trace::HostTrace> hosts;
  for (int i = 0; i < paths.size(); ++i) {
    auto loaded = session::OpenTraceFile(paths[i].toStdString(), [&](double share) {
      return progress.Report((i + share) / paths.size());
    });
    if (!loaded.ok()) {
      progress.Close();
      if (loaded.status().code() != engine::StatusCode::kCancelled)
        QMessageBox::warning(window_, "Cannot open the trace", Text(loaded.status().message()));
      return nullptr;
    }
    hosts.push_back({session::HostNameOf(paths[i].toStdString()), loaded->model});
  }
  progress.Close();
  trace::MergedHosts merged = trace::MergeHosts(hosts);
  *verdict = HostsVerdict(merged);
  for (const auto& w : merged.warnings) emit Message(Text(w), 10000);
  return std::move(merged.model);
}

bool DocumentFiles::Write(const QString& path, const QString& doing, const QString& failure,
                          Writer writer) {
  if (!document_->is_open()) return false;
  before_write_();
  ModalProgress progress(window_, "", doing + " " + QFileInfo(path).fileName() + "...");
  const engine::Status status = writer(*document_->model(), path.toStdString(),
                                       [&](double share) { return progress.Report(share); });
  progress.Close();
  if (status.ok()) return true;
  if (status.code() != engine::StatusCode::kCancelled)
    QMessageBox::warning(window_, failure, Text(status.message()));
  return false;
}

bool DocumentFiles::SaveTrace(const QString& path) {
  if (!Write(path, "Saving", "Cannot save the trace", pstrace::WriteModel)) return false;
  document_->MarkSaved(QFileInfo(path).fileName());
  emit Saved(path);
  emit Message("Saved " + path, 5000);
  return true;
}

bool DocumentFiles::ExportTrace(const QString& path) {
  if (!Write(path, "Exporting", "Cannot export the trace", session::WriteTraceFile)) return false;
  emit Message("Exported " + path, 5000);
  return true;
}

bool DocumentFiles::ConfirmDiscardNotes() {
  if (!document_->notes_unsaved()) return true;
  const auto answer =
      QMessageBox::question(window_, "Unsaved notes",
                            "The notes added to this trace are not saved. Save the trace first?",
                            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) {
    SaveDialog(false);
    return !document_->notes_unsaved();
  }
  return true;
}

QString DocumentFiles::OpenDialog() {
  return QFileDialog::getOpenFileName(
      window_, "Open a trace or a pipeline spec", QString(),
      "Traces, specs and code (" + AllTracePatterns() + " *.pbtxt *.py);;" +
          TraceDialogFilters(false) +
          ";;Pipeline specs (*.pbtxt);;Python code building a pipeline (*.py);;All files (*)");
}

QStringList DocumentFiles::OpenHostsDialog() {
  return QFileDialog::getOpenFileNames(window_, "Open one trace per host of a training job",
                                       QString(), TraceDialogFilters(false) + ";;All files (*)");
}

void DocumentFiles::SaveDialog(bool run_is_live) {
  if (!document_->is_open()) return;
  if (run_is_live && QMessageBox::question(window_, "Save the trace",
                                           "The run is still going. Stop it and save its trace?") !=
                         QMessageBox::Yes) {
    return;
  }
  QSettings settings;
  const QString dir = settings.value("files/save_dir").toString();
  const session::TraceFormat& pstrace = session::TraceFormatOf(session::TraceFormatId::kPstrace);
  const QString extension = Text(pstrace.extensions.front());
  QString path = QFileDialog::getSaveFileName(window_, "Save trace as", dir, DialogFilter(pstrace));
  if (path.isEmpty()) return;
  if (!path.endsWith(extension)) path += extension;
  settings.setValue("files/save_dir", QFileInfo(path).absolutePath());
  SaveTrace(path);
}

void DocumentFiles::ExportDialog() {
  if (!document_->is_open()) return;
  QSettings settings;
  QString filter = settings.value("files/export_filter").toString();
  QString path = QFileDialog::getSaveFileName(window_, "Export the trace as",
                                              settings.value("files/save_dir").toString(),
                                              TraceDialogFilters(true), &filter);
  if (path.isEmpty()) return;
  if (session::WrittenFormatNamedBy(path.toStdString()) == nullptr) {
    // No extension the formats know: the chosen filter's first one.
    for (const session::TraceFormat& f : session::TraceFormats()) {
      if (filter.startsWith(QString::fromUtf8(f.name))) {
        path += Text(f.extensions.front());
        break;
      }
    }
  }
  settings.setValue("files/export_filter", filter);
  settings.setValue("files/save_dir", QFileInfo(path).absolutePath());
  ExportTrace(path);
}

}  // namespace pipescope::ui
