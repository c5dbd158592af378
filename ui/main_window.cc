#include "ui/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <algorithm>
#include <utility>

#include "ui/compare_controller.h"
#include "ui/document_files.h"
#include "ui/help_menu.h"
#include "ui/main_docks.h"
#include "ui/panels/advice_panel.h"
#include "ui/panels/code_panel.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/notes_panel.h"
#include "ui/panels/pipeline_panel.h"
#include "ui/panels/statistics_panel.h"
#include "ui/recent_files.h"
#include "ui/run_controller.h"
#include "ui/search_bar.h"
#include "ui/timeline/timeline_widget.h"
#include "ui/trace_document.h"
#include "ui/tune_controller.h"
#include "ui/view_controller.h"

namespace pipescope::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      document_(std::make_unique<TraceDocument>()),
      timeline_(new TimelineWidget(this)),
      view_(new ViewController(this, timeline_)) {
  setWindowTitle("Pipescope");
  setAcceptDrops(true);
  setCentralWidget(timeline_);
  docks_ = std::make_unique<MainDocks>(BuildDocks(this, timeline_, document_.get()));
  run_ = std::make_unique<RunController>(this, document_.get(), docks_->pipeline);
  tuning_ = std::make_unique<TuneController>(this, run_.get(), docks_->tuning_label,
                                             docks_->tuning_chart);
  compare_ = std::make_unique<CompareController>(this, document_.get(), run_.get());
  files_ = new DocumentFiles(this, document_.get(), [this] { run_->StopRunAndWait(); });
  BuildMenus();
  status_ = new QLabel(this);
  statusBar()->addPermanentWidget(status_);
  ConnectParts();

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  if (!settings.contains("window/geometry")) resize(1280, 800);
  // Once the window has its size (dock sizes before it are shares of a smaller one).
  if (!settings.contains("window/state"))
    QTimer::singleShot(0, this, [this] { FitSideDocks(this); });
  view_->RestoreSettings();
  run_->UpdateActions();
}

MainWindow::~MainWindow() {
  // The parts go before the run they drive, and the timeline lets go of the run's lock
  // before the run goes; the document says nothing more to a window being destroyed.
  document_->disconnect(this);
  timeline_->SetModel(nullptr);
  compare_.reset();
  tuning_.reset();
  run_.reset();
}

void MainWindow::ConnectParts() {
  connect(run_.get(), &RunController::Message, this, &MainWindow::ShowMessage);
  connect(tuning_.get(), &TuneController::Message, this, &MainWindow::ShowMessage);
  connect(compare_.get(), &CompareController::Message, this, &MainWindow::ShowMessage);
  connect(files_, &DocumentFiles::Message, this, &MainWindow::ShowMessage);
  connect(files_, &DocumentFiles::Saved, this,
          [this](const QString& path) { recent_->Remember(path); });

  connect(document_.get(), &TraceDocument::Opened, this, &MainWindow::OnDocumentOpened);
  connect(document_.get(), &TraceDocument::Closed, this, [this] { timeline_->SetModel(nullptr); });
  connect(document_.get(), &TraceDocument::TitleChanged, this, &QWidget::setWindowTitle);

  connect(run_.get(), &RunController::RefreshDue, this, [this] {
    docks_->advice->AdviseLive(*document_);
    Refresh();
  });
  connect(run_.get(), &RunController::Finished, this, &MainWindow::OnRunFinished);
  connect(run_.get(), &RunController::ActionsChanged, this, [this] {
    save_->setEnabled(document_->is_open());
    export_->setEnabled(document_->is_open());
  });
  run_->SetMayReplace([this] { return files_->ConfirmDiscardNotes(); });
  connect(
      run_.get(), &RunController::WorkersRan, this,
      [this](std::shared_ptr<trace::Model> model, const QString& title, const QString& verdict) {
        // The spec stays with the Run menu: Start runs it as one pipeline again.
        document_->Open(std::move(model), nullptr, title);
        docks_->pipeline->ShowTrace(*document_->model());
        docks_->pipeline->ShowOrder({}, false);
        document_->SetHostsVerdict(verdict);
        Refresh();
      });
  connect(run_.get(), &RunController::CodeOpened, this, [this] {
    const code::ImportedCode& code = *run_->code();
    docks_->code->ShowCode(QFileInfo(run_->spec_path()).fileName(),
                           QString::fromStdString(code.source_text), code.notes);
    ShowSourceDock(this, *docks_);
  });

  connect(timeline_, &TimelineWidget::SelectionChanged, this, [this] { Refresh(); });
  connect(timeline_, &TimelineWidget::GapExplained, this, [this](const QString& text) {
    docks_->gap_label->setText(text);
    ShowMessage(text, 15000);
  });
  connect(docks_->advice, &AdvicePanel::Ready, this, &MainWindow::Refresh);
  connect(docks_->advice, &AdvicePanel::RunRequested, run_.get(), &RunController::RunAdvised);
  connect(docks_->advice, &AdvicePanel::WhatIfRequested, compare_.get(),
          &CompareController::WhatIfDialog);
  connect(docks_->lessons, &LessonsPanel::TraceReady, this,
          [this](std::shared_ptr<trace::Model> model, const QString& title) {
            ShowModel(std::move(model), title);
          });
}

void MainWindow::BuildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  QMenu* edit = menuBar()->addMenu("&Edit");
  QMenu* run = menuBar()->addMenu("&Run");
  QMenu* tune = menuBar()->addMenu("&Tune");
  QMenu* view = menuBar()->addMenu("&View");
  QMenu* help = menuBar()->addMenu("&Help");

  file->addAction("&Open...", QKeySequence::Open, this, [this] {
    const QString path = files_->OpenDialog();
    if (!path.isEmpty()) OpenFile(path);
  });
  file->addAction("Open Traces of Several &Hosts...", this, [this] {
    const QStringList paths = files_->OpenHostsDialog();
    if (paths.size() == 1) OpenFile(paths[0]);
    if (paths.size() > 1) OpenHosts(paths);
  });
  recent_ = new RecentFiles(file->addMenu("Open &Recent"),
                            [this](const QString& path) { OpenFile(path); });
  save_ = file->addAction("&Save Trace As...", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this,
                          [this] { files_->SaveDialog(run_->is_live()); });
  export_ = file->addAction("&Export Trace...", QKeySequence(Qt::CTRL | Qt::Key_E), files_,
                            &DocumentFiles::ExportDialog);
  export_->setToolTip("Perfetto (opens in ui.perfetto.dev) or Chrome trace JSON");
  run_->BuildMenus(run, file, edit);
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

  tuning_->BuildMenu(tune);
  tune->addSeparator();
  compare_->BuildMenu(tune);

  view_->BuildMenu(view, AddSearchBar(this, timeline_));
  FillHelpMenu(help, this);
}

bool MainWindow::OpenFile(const QString& path) {
  if (!files_->ConfirmDiscardNotes()) return false;
  bool ok = false;
  if (path.endsWith(".py")) {
    ok = run_->OpenCode(path);
  } else {
    if (path.endsWith(".pbtxt")) {
      ok = run_->OpenSpec(path);
    } else if (std::shared_ptr<trace::Model> model = files_->ReadTrace(path)) {
      ShowModel(std::move(model), QFileInfo(path).fileName());
      ok = true;
    }
    if (ok) docks_->code_dock->hide();
  }
  if (ok) recent_->Remember(path);
  return ok;
}

bool MainWindow::OpenHosts(const QStringList& paths) {
  if (!files_->ConfirmDiscardNotes()) return false;
  QString verdict;
  std::shared_ptr<trace::Model> merged = files_->ReadHosts(paths, &verdict);
  if (merged == nullptr) return false;
  ShowModel(std::move(merged), QString("%1 hosts").arg(paths.size()));
  document_->SetHostsVerdict(verdict);
  Refresh();
  return true;
}

void MainWindow::ShowModel(std::shared_ptr<trace::Model> model, const QString& title) {
  run_->Forget();
  document_->Open(std::move(model), nullptr, title);
  docks_->pipeline->ShowTrace(*document_->model());
  docks_->pipeline->ShowOrder({}, false);
}

void MainWindow::OnDocumentOpened() {
  timeline_->SetModel(document_->shared_model(), &document_->mutex(), document_->recording());
  docks_->gap_label->setText(kGapHint);
  // A finished recording or a saved trace is advised now; a live run when it ends.
  if (!document_->recording() && document_->imported_from().empty()) {
    docks_->advice->Start(document_->shared_model());
  } else if (document_->imported_from() == "pytorch") {
    docks_->advice->StartWhatIf(document_->shared_model());
  } else {
    docks_->advice->Clear();
  }
  run_->UpdateActions();
  Refresh();
}

void MainWindow::OnRunFinished() {
  timeline_->SetLive(false);
  if (run_->live_run()->outcome().ok()) docks_->advice->Start(document_->shared_model());
  Refresh();
}

void MainWindow::Refresh() {
  if (!document_->is_open()) return;
  const session::LiveRun* live = run_->live_run();
  figures_ = FiguresOf(*document_,
                       {timeline_->selection_start(), timeline_->selection_end(), run_->is_live(),
                        live != nullptr && live->paused(), docks_->advice->advice()});
  docks_->range_label->setText(figures_.range);
  if (figures_.spans)
    docks_->statistics->ShowSpanStatistics(*figures_.spans);
  else
    docks_->statistics->ShowAnalysis(figures_.analysis);
  timeline_->SetBottleneck(figures_.bottleneck);
  docks_->verdict->setText(figures_.verdict);
  status_->setText(figures_.status);
  tuning_->Refresh();
}

bool MainWindow::OpenLesson(const QString& name) {
  QString error;
  if (!docks_->lessons->SelectLesson(name, &error)) {
    QMessageBox::warning(this, "No such lesson", error);
    return false;
  }
  ShowLessonsDock(this, view_->presenter_mode());
  if (view_->presenter_mode()) ArrangeLessonDocks(this, true);
  docks_->lessons->RunCheck();  // the starting pipeline's run, to look at before changing it
  return true;
}

void MainWindow::ShowMessage(const QString& text, int timeout_ms) {
  statusBar()->showMessage(text, timeout_ms);
}

StatisticsPanel* MainWindow::statistics() const { return docks_->statistics; }
PipelinePanel* MainWindow::pipeline_panel() const { return docks_->pipeline; }
CodePanel* MainWindow::code_panel() const { return docks_->code; }
LessonsPanel* MainWindow::lessons() const { return docks_->lessons; }
NotesPanel* MainWindow::notes() const { return docks_->notes; }
QString MainWindow::verdict_text() const { return docks_->verdict->text(); }
QString MainWindow::advice_text() const { return docks_->advice->text(); }
bool MainWindow::advising() const { return docks_->advice->pending(); }
QString MainWindow::status_text() const { return status_->text(); }
QString MainWindow::range_text() const { return docks_->range_label->text(); }

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const auto urls = e->mimeData()->urls();
  if (!urls.isEmpty()) OpenFile(urls.first().toLocalFile());
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!files_->ConfirmDiscardNotes()) {
    e->ignore();
    return;
  }
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", view_->LayoutToKeep());
  run_->StopRun();
  e->accept();
}

}  // namespace pipescope::ui
