#include "ui/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>
#include <QTableWidget>
#include <QtConcurrent/QtConcurrent>
#include <atomic>
#include <optional>

#include "app/session/recorded_run.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/format/trace_reader.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

constexpr int kMaxRecent = 8;

QTableWidgetItem* Number(double v, const char* format) {
  auto* item = new QTableWidgetItem;
  item->setData(Qt::DisplayRole, QString::asprintf(format, v));
  item->setData(Qt::UserRole, v);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("Pipescope");
  setAcceptDrops(true);
  timeline_ = new TimelineWidget(this);
  setCentralWidget(timeline_);

  statistics_ = new QTableWidget(0, 8, this);
  statistics_->setHorizontalHeaderLabels({"op", "kind", "parallelism", "elements/s",
                                          "self/elem (us)", "busy %", "waiting %",
                                          "caused wait %"});
  statistics_->setSortingEnabled(true);
  statistics_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  statistics_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  auto* stats_dock = new QDockWidget("Statistics", this);
  stats_dock->setObjectName("statistics");
  stats_dock->setWidget(statistics_);
  addDockWidget(Qt::BottomDockWidgetArea, stats_dock);

  verdict_ = new QLabel("No trace open.", this);
  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  verdict_->setMargin(8);
  auto* verdict_dock = new QDockWidget("Verdict", this);
  verdict_dock->setObjectName("verdict");
  verdict_dock->setWidget(verdict_);
  addDockWidget(Qt::RightDockWidgetArea, verdict_dock);

  status_ = new QLabel(this);
  statusBar()->addPermanentWidget(status_);
  BuildMenus();
  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  if (!settings.contains("window/geometry")) resize(1280, 800);
}

void MainWindow::BuildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open...", QKeySequence::Open, this, &MainWindow::OpenDialog);
  recent_menu_ = file->addMenu("Open &Recent");
  RefreshRecentMenu();
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("Zoom to &Fit", QKeySequence(Qt::Key_F), timeline_, &TimelineWidget::ZoomToFit);
  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("&Keyboard Shortcuts", this, [this] {
    QMessageBox::information(this, "Keyboard shortcuts",
                             "Timeline: W / S zoom in / out, A / D pan, F zoom to fit,\n"
                             "wheel zooms around the cursor, drag to pan.\n"
                             "Ctrl+O open a trace or a pipeline spec, Ctrl+Q quit.");
  });
  help->addAction("&About Pipescope", this, [this] {
    QMessageBox::about(this, "About Pipescope",
                       "Pipescope 0.1.0: finds and fixes bottlenecks in ML input pipelines.");
  });
}

void MainWindow::OpenDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, "Open a trace or a pipeline spec", QString(),
                                   "Traces and specs (*.pstrace *.pbtxt);;All files (*)");
  if (!path.isEmpty()) OpenFile(path);
}

bool MainWindow::OpenFile(const QString& path) {
  const bool ok = path.endsWith(".pbtxt") ? RunSpec(path) : OpenTrace(path);
  if (ok) RememberRecent(path);
  return ok;
}

bool MainWindow::OpenTrace(const QString& path) {
  QProgressDialog progress("Opening " + QFileInfo(path).fileName() + "...", "Cancel", 0, 1000,
                           this);
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(300);
  pstrace::ReadOptions options;
  options.progress = [&](double share) {
    progress.setValue(static_cast<int>(share * 1000));
    QApplication::processEvents();
    return !progress.wasCanceled();
  };
  auto loaded = pstrace::ReadTraceFile(path.toStdString(), options);
  progress.reset();
  if (!loaded.ok()) {
    if (loaded.status().code() != engine::StatusCode::kCancelled) {
      QMessageBox::warning(this, "Cannot open the trace",
                           QString::fromStdString(loaded.status().message()));
    }
    return false;
  }
  for (const auto& w : loaded->warnings) statusBar()->showMessage(QString::fromStdString(w), 10000);
  ShowModel(std::shared_ptr<const trace::Model>(std::move(loaded->model)),
            QFileInfo(path).fileName());
  return true;
}

bool MainWindow::RunSpec(const QString& path) {
  auto spec = engine::LoadSpecFile(path.toStdString());
  if (!spec.ok()) {
    QMessageBox::warning(this, "Cannot run the pipeline",
                         QString::fromStdString(spec.status().message()));
    return false;
  }
  const int tenths = std::max(1, static_cast<int>(run_seconds_ * 10));
  QProgressDialog progress(
      QString("Running %1 for %2 s...").arg(QFileInfo(path).fileName()).arg(run_seconds_), "Stop",
      0, tenths, this);
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(0);
  std::atomic<engine::Pipeline*> running{nullptr};
  session::RecordedRunOptions options;
  options.spec_path = path.toStdString();
  options.run.duration_ns = static_cast<int64_t>(run_seconds_ * 1e9);
  options.on_pipeline = [&running](engine::Pipeline* p) { running.store(p); };
  // The run happens on a pool thread; this one keeps the dialog responsive and can stop it.
  std::optional<engine::Result<session::RecordedRunResult>> outcome;
  auto future = QtConcurrent::run([&] { outcome.emplace(session::RunRecorded(*spec, options)); });
  for (int tick = 0; !future.isFinished(); ++tick) {
    progress.setValue(std::min(tick / 10, tenths));
    QApplication::processEvents(QEventLoop::AllEvents, 100);
    QThread::msleep(10);
    if (progress.wasCanceled()) {
      if (auto* p = running.load()) p->Cancel();
    }
  }
  progress.reset();
  auto& result = *outcome;
  if (!result.ok() || !result->run_status.ok()) {
    const auto& s = result.ok() ? result->run_status : result.status();
    QMessageBox::warning(this, "The pipeline failed", QString::fromStdString(s.message()));
    if (!result.ok() || !result->model) return false;
  }
  ShowModel(std::shared_ptr<const trace::Model>(std::move(result->model)),
            QFileInfo(path).fileName());
  return true;
}

void MainWindow::ShowModel(std::shared_ptr<const trace::Model> model, const QString& title) {
  model_ = std::move(model);
  setWindowTitle(title + " - Pipescope");
  timeline_->SetModel(model_);
  const trace::RangeAnalysis a = trace::Analyze(*model_);
  statistics_->setSortingEnabled(false);
  statistics_->setRowCount(static_cast<int>(a.stages.size()));
  for (int row = 0; row < static_cast<int>(a.stages.size()); ++row) {
    const auto& s = a.stages[static_cast<size_t>(row)];
    statistics_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(s.name)));
    statistics_->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(s.op)));
    statistics_->setItem(row, 2, Number(s.parallelism, "%.0f"));
    statistics_->setItem(row, 3, Number(s.elements_per_s, "%.1f"));
    statistics_->setItem(row, 4, Number(s.self_ns_per_element / 1e3, "%.1f"));
    statistics_->setItem(row, 5, Number(100 * s.busy_fraction, "%.0f"));
    statistics_->setItem(row, 6, Number(100 * s.waiting_input_fraction, "%.0f"));
    statistics_->setItem(row, 7, Number(100 * s.caused_wait_share, "%.0f"));
  }
  // Pipeline order until the user sorts by a column.
  statistics_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  statistics_->setSortingEnabled(true);
  verdict_->setText(QString::fromStdString(a.verdict.text));
  status_->setText(QString::asprintf("%.1f steps/s   input wait %.0f%%   device busy %.0f%%",
                                     a.steps_per_s, 100 * a.input_wait_fraction,
                                     100 * a.device_busy_fraction));
}

QString MainWindow::verdict_text() const { return verdict_->text(); }

void MainWindow::RememberRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("recent_files").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue("recent_files", recent);
  RefreshRecentMenu();
}

void MainWindow::RefreshRecentMenu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value("recent_files").toStringList();
  for (const QString& path : recent) {
    recent_menu_->addAction(path, this, [this, path] { OpenFile(path); });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const auto urls = e->mimeData()->urls();
  if (!urls.isEmpty()) OpenFile(urls.first().toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent* e) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  e->accept();
}

}  // namespace pipescope::ui
