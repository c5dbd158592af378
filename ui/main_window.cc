#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QStyleFactory>
#include <QToolBar>
#include <QVBoxLayout>

#include "app/session/trace_files.h"
#include "app/session/trace_formats.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/format/model_writer.h"
#include "instrumentation/trace/import/host_merge.h"
#include "ui/compare/compare_window.h"
#include "ui/compare/grid_window.h"
#include "ui/modal_progress.h"
#include "ui/model_lock.h"
#include "ui/panels/advice_panel.h"
#include "ui/panels/code_panel.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/notes_panel.h"
#include "ui/panels/op_order_editor.h"
#include "ui/panels/pipeline_panel.h"
#include "ui/panels/statistics_panel.h"
#include "ui/panels/tuning_chart.h"
#include "ui/timeline/timeline_widget.h"

namespace pipescope::ui {
namespace {

constexpr int kMaxRecent = 8;

QDockWidget* Dock(QMainWindow* window, const QString& title, const char* name, QWidget* content,
                  Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(name);
  dock->setWidget(content);
  window->addDockWidget(area, dock);
  return dock;
}

const char* kShortcuts =
    "Timeline\n"
    "  W / S          zoom in / out          A / D   pan left / right\n"
    "  wheel          zoom around the cursor (over the labels: scroll the lanes)\n"
    "  drag           pan                    F       zoom to fit\n"
    "  Shift+drag     select a range (or drag on the time axis): the docks show it\n"
    "  Ctrl+drag      measure between span edges\n"
    "  click a red gap      which op made the consumer wait\n"
    "  click a span         the element's path through every op\n"
    "  right button   notes and selection    Esc     clear selection and highlights\n"
    "  End            follow a live run\n\n"
    "Pipeline dock (live run)\n"
    "  drag an op, or Alt+Up / Alt+Down     move it      Delete  remove it\n\n"
    "Window\n"
    "  Ctrl+O open   Ctrl+Shift+S save trace as   Ctrl+E export   Ctrl+F search   Ctrl+Q quit\n"
    "  in search: Enter / F3 next matching span, Shift+Enter / Shift+F3 the previous one\n"
    "  F5 start   F6 pause / resume   Shift+F5 stop   Ctrl+Shift+F5 restart\n"
    "  Ctrl+T autotune live (Pipescope)   Ctrl+Shift+T autotune live (tf.data)\n"
    "  Ctrl+. stop tuning   Ctrl+K compare with autotuned   Ctrl+G grid of knobs\n"
    "  Ctrl+I what if (PyTorch trace)\n\n"
    "Lessons and workshops\n"
    "  Ctrl+L lessons dock   Ctrl+Return run and check the lesson's pipeline\n"
    "  Ctrl+Shift+P presenter mode (large, high contrast, for projectors)\n"
    "  F11 timeline only (every dock hidden; F11 again brings them back)\n";

// "Chrome trace JSON (*.json *.json.gz)".
QString DialogFilter(const session::TraceFormat& f) {
  return QString("%1 (%2)").arg(QString::fromUtf8(f.name),
                                QString::fromStdString(session::DialogPatterns(f)));
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
    if (f.opens) patterns << QString::fromStdString(session::DialogPatterns(f));
  }
  return patterns.join(' ');
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle("Pipescope");
  setAcceptDrops(true);
  timeline_ = new TimelineWidget(this);
  setCentralWidget(timeline_);
  BuildDocks();
  BuildMenus();
  status_ = new QLabel(this);
  statusBar()->addPermanentWidget(status_);

  connect(timeline_, &TimelineWidget::SelectionChanged, this,
          [this](qint64 t0, qint64 t1) { OnSelection(t0, t1); });
  connect(timeline_, &TimelineWidget::GapExplained, this, [this](const QString& text) {
    gap_label_->setText(text);
    statusBar()->showMessage(text, 15000);
  });
  connect(timeline_, &TimelineWidget::NoteRequested, this,
          [this](qint64 t0, qint64 t1) { RequestNote(t0, t1); });
  connect(pipeline_, &PipelinePanel::KnobEdited, this,
          [this](const QString& op, const QString& knob, qint64 value) {
            if (!live_) return;
            const auto s = live_->SetKnob(op.toStdString(), knob.toStdString(), value);
            if (!s.ok()) statusBar()->showMessage(QString::fromStdString(s.message()), 10000);
          });
  connect(pipeline_->order_editor(), &OpOrderEditor::ChangeRequested, this,
          [this](const spec::PipelineSpec& after, const QString& description) {
            ChangePipeline(after, description);
          });
  connect(&refresh_timer_, &QTimer::timeout, this, &MainWindow::Refresh);
  refresh_timer_.setInterval(250);

  QSettings settings;
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  if (!settings.contains("window/geometry")) resize(1280, 800);
  SetDarkTheme(settings.value("view/dark", true).toBool());
  if (settings.value("view/presenter", false).toBool()) SetPresenterMode(true);
  UpdateRunActions();
}

void MainWindow::ShowLessonsDock() {
  auto* dock = findChild<QDockWidget*>("lessons");
  auto* editor = findChild<QDockWidget*>("lesson_pipeline");
  const bool arranged = editor->isVisible();
  dock->show();
  dock->raise();
  editor->show();
  editor->raise();
  if (!arranged) ArrangeLessonDocks();
}

void MainWindow::ArrangeLessonDocks() {
  auto* text = findChild<QDockWidget*>("lessons");
  auto* editor = findChild<QDockWidget*>("lesson_pipeline");
  auto* verdict = findChild<QDockWidget*>("verdict");
  if (editor->isFloating() || dockWidgetArea(editor) != Qt::RightDockWidgetArea) return;
  // The right column runs to the bottom too, beside the statistics: the pipeline needs the
  // height more than the table needs the width.
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  // The verdict goes under the pipeline (or, in presenter mode's large type, behind it:
  // the goals already give the figures), the notes stay with the verdict.
  if (presenter_) {
    tabifyDockWidget(verdict, editor);
  } else {
    splitDockWidget(editor, verdict, Qt::Vertical);
    if (auto* notes = findChild<QDockWidget*>("notes")) tabifyDockWidget(verdict, notes);
    verdict->raise();
    resizeDocks({editor, verdict}, {height() * 7 / 10, height() * 3 / 10}, Qt::Vertical);
  }
  editor->raise();
  // A quarter of the width to the text, a third to the pipeline: the rest is the timeline.
  resizeDocks({text, editor}, {width() / 4, width() / 3}, Qt::Horizontal);
}

bool MainWindow::OpenLesson(const QString& name) {
  QString error;
  if (!lessons_->SelectLesson(name, &error)) {
    QMessageBox::warning(this, "No such lesson", error);
    return false;
  }
  ShowLessonsDock();
  if (presenter_) ArrangeLessonDocks();
  lessons_->RunCheck();  // the starting pipeline's run, to look at before changing it
  return true;
}

void MainWindow::FitDocksForPresenter() {
  // Most of the width to the timeline: a quarter to the lesson, a sixth to the verdict.
  QList<QDockWidget*> side;
  QList<int> widths;
  for (const auto& [name, share] : {std::pair{"lessons", 4}, std::pair{"verdict", 6}}) {
    if (auto* d = findChild<QDockWidget*>(name); d && !d->isHidden()) {
      side << d;
      widths << width() / share;
    }
  }
  resizeDocks(side, widths, Qt::Horizontal);
}

void MainWindow::SetTimelineOnly(bool on) {
  focus_.Set(on);
  if (timeline_only_) timeline_only_->setChecked(focus_.on());
}

void MainWindow::SetPresenterMode(bool on) {
  if (on == presenter_) return;
  SetTimelineOnly(false);  // presenter mode keeps the layout from before it
  presenter_ = on;
  constexpr float kScale = 1.6f;
  if (on) {
    normal_font_ = QApplication::font();
    state_before_presenter_ = saveState();
    QFont big = normal_font_;
    big.setPointSizeF(normal_font_.pointSizeF() * kScale);
    QApplication::setFont(big);
    // High contrast: pure black and white, a saturated highlight.
    QPalette p = QApplication::palette();
    for (auto role :
         {QPalette::Window, QPalette::Base, QPalette::Button, QPalette::AlternateBase}) {
      p.setColor(role, Qt::black);
    }
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
      p.setColor(role, Qt::white);
    }
    p.setColor(QPalette::Highlight, QColor(255, 200, 0));
    p.setColor(QPalette::HighlightedText, Qt::black);
    QApplication::setPalette(p);
    // Less chrome: the timeline, the verdict and the lessons only.
    for (const char* name : {"statistics", "pipeline", "notes"}) {
      if (auto* d = findChild<QDockWidget*>(name)) d->hide();
    }
    statusBar()->hide();
    for (auto* bar : findChildren<QToolBar*>()) bar->hide();
    FitDocksForPresenter();
    if (findChild<QDockWidget*>("lesson_pipeline")->isVisible()) ArrangeLessonDocks();
    timeline_->SetUiScale(kScale);
  } else {
    QApplication::setFont(normal_font_);
    SetDarkTheme(QSettings().value("view/dark", true).toBool());
    if (!state_before_presenter_.isEmpty()) restoreState(state_before_presenter_);
    statusBar()->show();
    for (auto* bar : findChildren<QToolBar*>()) bar->show();
    timeline_->SetUiScale(1.0f);
  }
  if (presenter_action_) presenter_action_->setChecked(on);
  QSettings().setValue("view/presenter", on);
}

MainWindow::~MainWindow() {
  // The timeline reads the model under the run's lock: detach it before the run goes.
  timeline_->SetModel(nullptr);
  tuning_.reset();
  live_.reset();
}

void MainWindow::BuildDocks() {
  statistics_ = new StatisticsPanel(this);
  auto* stats_box = new QWidget(this);
  auto* stats_layout = new QVBoxLayout(stats_box);
  stats_layout->setContentsMargins(0, 0, 0, 0);
  range_label_ = new QLabel("Whole trace", stats_box);
  range_label_->setMargin(4);
  stats_layout->addWidget(range_label_);
  stats_layout->addWidget(statistics_);
  Dock(this, "Statistics", "statistics", stats_box, Qt::BottomDockWidgetArea);

  auto* verdict_box = new QWidget(this);
  auto* verdict_layout = new QVBoxLayout(verdict_box);
  verdict_ = new QLabel("No trace open.", verdict_box);
  gap_label_ = new QLabel(kGapHint, verdict_box);
  tuning_label_ = new QLabel(verdict_box);
  tuning_label_->hide();
  for (QLabel* l : {verdict_, tuning_label_, gap_label_}) {
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setMargin(6);
    // A word longer than the column (use_multiprocessing=True,) may be cut; the rest of
    // the text still wraps to the column instead of widening it past the dock.
    l->setMinimumWidth(1);
    verdict_layout->addWidget(l);
  }
  advice_ = new AdvicePanel(verdict_box);
  verdict_layout->insertWidget(1, advice_);  // under the verdict it corrects
  connect(advice_, &AdvicePanel::Ready, this, [this] { Refresh(); });
  connect(
      advice_, &AdvicePanel::RunRequested, this,
      [this](const spec::PipelineSpec& spec, const QString& change) { RunAdvised(spec, change); });
  connect(advice_, &AdvicePanel::WhatIfRequested, this, &MainWindow::WhatIfDialog);
  // The tuner's trials, under its line (the label above says where it stands).
  tuning_chart_ = new TuningChart(verdict_box);
  tuning_chart_->hide();
  verdict_layout->insertWidget(verdict_layout->indexOf(tuning_label_) + 1, tuning_chart_);
  verdict_layout->addStretch(1);
  // Scrolls when its column is short (beside a lesson's pipeline): nothing is cut off.
  auto* verdict_scroll = new QScrollArea(this);
  verdict_scroll->setWidget(verdict_box);
  verdict_scroll->setWidgetResizable(true);
  verdict_scroll->setFrameShape(QFrame::NoFrame);
  verdict_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  Dock(this, "Verdict", "verdict", verdict_scroll, Qt::RightDockWidgetArea);

  pipeline_ = new PipelinePanel(this);
  pipeline_->SetNavigationTarget(timeline_);
  Dock(this, "Pipeline", "pipeline", pipeline_, Qt::LeftDockWidgetArea);

  notes_ = new NotesPanel(this);
  auto* notes_dock = Dock(this, "Notes", "notes", notes_, Qt::RightDockWidgetArea);
  // The Python a pipeline was read from, beside the Pipeline dock that runs it.
  code_panel_ = new CodePanel(this);
  code_dock_ = Dock(this, "Source", "code_source", code_panel_, Qt::LeftDockWidgetArea);
  splitDockWidget(findChild<QDockWidget*>("pipeline"), code_dock_, Qt::Vertical);
  code_dock_->hide();
  connect(notes_, &NotesPanel::NoteActivated, this, [this](qint64 t0, qint64 t1) {
    const int64_t pad = std::max<int64_t>((t1 - t0) / 4, 50'000'000);
    timeline_->SetFollowing(false);
    timeline_->SetView(t0 - pad, t1 + pad);
  });
  connect(notes_, &NotesPanel::NoteDeleteRequested, this, [this](int index) {
    if (!model_) return;
    {
      const auto guard = LockModel(model_lock_);
      model_->RemoveAnnotation(static_cast<size_t>(index));
      notes_->ShowNotes(model_->annotations());
    }
    notes_unsaved_ = true;
    timeline_->update();
  });
  lessons_ = new LessonsPanel(this);
  auto* lessons_dock = Dock(this, "Lessons", "lessons", lessons_, Qt::LeftDockWidgetArea);
  tabifyDockWidget(findChild<QDockWidget*>("pipeline"), lessons_dock);
  // The left column runs to the bottom: a lesson's text and pipeline need the height.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  lessons_dock->hide();  // until asked for (View > Lessons, --lesson)
  // The lesson's pipeline beside its text, above the verdict: both have room to read.
  auto* editor_dock = Dock(this, "Lesson Pipeline", "lesson_pipeline", lessons_->editor_panel(),
                           Qt::RightDockWidgetArea);
  editor_dock->hide();
  connect(lessons_, &LessonsPanel::TraceReady, this,
          [this](std::shared_ptr<trace::Model> model, const QString& title) {
            ShowModel(std::move(model), title);
          });
  tabifyDockWidget(findChild<QDockWidget*>("verdict"), notes_dock);
  findChild<QDockWidget*>("verdict")->raise();
}

void MainWindow::BuildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open...", QKeySequence::Open, this, &MainWindow::OpenDialog);
  file->addAction("Open Traces of Several &Hosts...", this, [this] {
    const QStringList paths =
        QFileDialog::getOpenFileNames(this, "Open one trace per host of a training job", QString(),
                                      TraceDialogFilters(false) + ";;All files (*)");
    if (paths.size() == 1) OpenFile(paths[0]);
    if (paths.size() > 1) OpenHosts(paths);
  });
  recent_menu_ = file->addMenu("Open &Recent");
  RefreshRecentMenu();
  save_ = file->addAction("&Save Trace As...", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this,
                          &MainWindow::SaveDialog);
  export_ = file->addAction("&Export Trace...", QKeySequence(Qt::CTRL | Qt::Key_E), this,
                            &MainWindow::ExportDialog);
  export_->setToolTip("Perfetto (opens in ui.perfetto.dev) or Chrome trace JSON");
  save_spec_ = file->addAction("Save Pipeline &Spec As...", this, &MainWindow::SaveSpecDialog);
  save_spec_->setToolTip("The running pipeline as a .pbtxt: its op order and knob values");
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu("&Edit");
  copy_code_ = edit->addAction(
      "Copy as &Code", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), this, [this] {
        QStringList notes;
        const QString text = PipelineAsCode(&notes);
        if (text.isEmpty()) return;
        QApplication::clipboard()->setText(text);
        statusBar()->showMessage(
            "Copied the pipeline as code" + (notes.isEmpty() ? QString() : ": " + notes.join("; ")),
            10000);
      });
  copy_code_->setToolTip(
      "The running pipeline with its current knobs: the opened .py with them written in, or "
      "tf.data, DataLoader or Keras code");

  QMenu* run = menuBar()->addMenu("&Run");
  start_ = run->addAction("&Start", QKeySequence(Qt::Key_F5), this, [this] { StartRun(); });
  pause_ = run->addAction("&Pause", QKeySequence(Qt::Key_F6), this,
                          [this](bool checked) { SetPaused(checked); });
  pause_->setCheckable(true);
  stop_ = run->addAction("S&top", QKeySequence(Qt::SHIFT | Qt::Key_F5), this, &MainWindow::StopRun);
  restart_ =
      run->addAction("&Restart", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5), this, [this] {
        StopRunAndWait();
        StartRun();
      });
  restart_->setToolTip("Run the spec again from its start, with the spec's knob values");
  BuildTuneMenu();

  QMenu* view = menuBar()->addMenu("&View");
  docks_menu_ = view->addMenu("&Docks");
  for (QDockWidget* dock : findChildren<QDockWidget*>())
    docks_menu_->addAction(dock->toggleViewAction());
  dark_ = view->addAction("&Dark Theme", this, [this](bool on) { SetDarkTheme(on); });
  dark_->setCheckable(true);
  view->addSeparator();
  view->addAction("Zoom to &Fit", QKeySequence(Qt::Key_F), timeline_, &TimelineWidget::ZoomToFit);
  view->addAction("Zoom to &Selection", QKeySequence(Qt::Key_Z), timeline_,
                  &TimelineWidget::ZoomToSelection);
  view->addAction("F&ollow the Live Run", QKeySequence(Qt::Key_End), timeline_,
                  [this] { timeline_->SetFollowing(true); });
  view->addSeparator();
  view->addAction("&Lessons", QKeySequence(Qt::CTRL | Qt::Key_L), this,
                  [this] { ShowLessonsDock(); });
  presenter_action_ =
      view->addAction("&Presenter Mode", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), this,
                      [this](bool on) { SetPresenterMode(on); });
  presenter_action_->setCheckable(true);
  timeline_only_ = view->addAction("&Timeline Only", QKeySequence(Qt::Key_F11), this,
                                   [this](bool on) { SetTimelineOnly(on); });
  timeline_only_->setCheckable(true);
  timeline_only_->setToolTip("Hides every dock so that the timeline has the whole window");
  view->addAction("Fi&nd...", QKeySequence::Find, this, [this] {
    search_->setFocus();
    search_->selectAll();
  });

  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("&Keyboard Shortcuts", QKeySequence(Qt::Key_F1), this, [this] {
    QMessageBox box(QMessageBox::Information, "Keyboard shortcuts", "", QMessageBox::Ok, this);
    box.setText(QString("<pre>%1</pre>").arg(QString(kShortcuts).toHtmlEscaped()));
    box.exec();
  });
  help->addAction("&About Pipescope", this, [this] {
    QMessageBox::about(this, "About Pipescope",
                       "Pipescope 0.1.0: finds and fixes bottlenecks in ML input pipelines.");
  });

  auto* bar = addToolBar("Search");
  bar->setObjectName("search");
  search_ = new QLineEdit(bar);
  search_->setPlaceholderText("Search ops, events and span names (Ctrl+F)");
  search_->setClearButtonEnabled(true);
  search_->setMaximumWidth(320);
  bar->addWidget(search_);
  // Enter goes to the next matching span, Shift+Enter to the previous one (F3, Shift+F3 too).
  auto next_match = [this](bool backward) {
    if (search_->text().trimmed().isEmpty()) return;
    const QString found = timeline_->NextMatch(backward);
    statusBar()->showMessage(found.isEmpty()
                                 ? QString("no span matches \"%1\"").arg(search_->text())
                                 : QString("match: %1").arg(found),
                             5000);
  };
  connect(search_, &QLineEdit::returnPressed, this,
          [next_match] { next_match(QApplication::keyboardModifiers() & Qt::ShiftModifier); });
  auto* next = new QShortcut(QKeySequence(Qt::Key_F3), this);
  connect(next, &QShortcut::activated, this, [next_match] { next_match(false); });
  auto* previous = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3), this);
  connect(previous, &QShortcut::activated, this, [next_match] { next_match(true); });
  connect(search_, &QLineEdit::textChanged, this, [this](const QString& text) {
    const int matches = timeline_->SetSearch(text);
    if (text.isEmpty()) return;
    const int64_t spans = timeline_->span_matches();
    statusBar()->showMessage(
        spans > 0 ? QString("%1 spans named like that, on %2 lanes").arg(spans).arg(matches)
                  : QString("%1 lanes match").arg(matches),
        5000);
  });
}

void MainWindow::SetDarkTheme(bool dark) {
  QApplication::setStyle(QStyleFactory::create("Fusion"));
  QPalette p = QApplication::style()->standardPalette();
  if (dark) {
    p.setColor(QPalette::Window, QColor(37, 37, 42));
    p.setColor(QPalette::WindowText, QColor(225, 225, 225));
    p.setColor(QPalette::Base, QColor(28, 28, 32));
    p.setColor(QPalette::AlternateBase, QColor(45, 45, 50));
    p.setColor(QPalette::Text, QColor(225, 225, 225));
    p.setColor(QPalette::Button, QColor(50, 50, 56));
    p.setColor(QPalette::ButtonText, QColor(225, 225, 225));
    p.setColor(QPalette::Highlight, QColor(60, 110, 200));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, QColor(50, 50, 56));
    p.setColor(QPalette::ToolTipText, QColor(225, 225, 225));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(130, 130, 130));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(130, 130, 130));
  }
  QApplication::setPalette(p);
  timeline_->SetDarkTheme(dark);
  if (dark_) dark_->setChecked(dark);
  QSettings().setValue("view/dark", dark);
}

void MainWindow::OpenDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, "Open a trace or a pipeline spec", QString(),
      "Traces, specs and code (" + AllTracePatterns() + " *.pbtxt *.py);;" +
          TraceDialogFilters(false) +
          ";;Pipeline specs (*.pbtxt);;Python code building a pipeline (*.py);;All files (*)");
  if (!path.isEmpty()) OpenFile(path);
}

bool MainWindow::OpenFile(const QString& path) {
  if (!ConfirmDiscardNotes()) return false;
  if (!path.endsWith(".py")) {
    code_.reset();
    code_dock_->hide();
  }
  const bool ok = path.endsWith(".py")      ? OpenCode(path)
                  : path.endsWith(".pbtxt") ? OpenSpec(path)
                                            : OpenTrace(path);
  if (ok) RememberRecent(path);
  return ok;
}

bool MainWindow::OpenTrace(const QString& path) {
  ModalProgress progress(this, "", "Opening " + QFileInfo(path).fileName() + "...");
  auto loaded = session::OpenTraceFile(path.toStdString(),
                                       [&](double share) { return progress.Report(share); });
  progress.Close();
  if (!loaded.ok()) {
    if (loaded.status().code() != engine::StatusCode::kCancelled) {
      QMessageBox::warning(this, "Cannot open the trace",
                           QString::fromStdString(loaded.status().message()));
    }
    return false;
  }
  for (const auto& w : loaded->warnings) statusBar()->showMessage(QString::fromStdString(w), 10000);
  ShowModel(std::move(loaded->model), QFileInfo(path).fileName());
  return true;
}

bool MainWindow::OpenHosts(const QStringList& paths) {
  if (!ConfirmDiscardNotes()) return false;
  ModalProgress progress(this, "", "Opening " + QString::number(paths.size()) + " traces...");
  std::vector<trace::HostTrace> hosts;
  for (int i = 0; i < paths.size(); ++i) {
    auto loaded = session::OpenTraceFile(paths[i].toStdString(), [&](double share) {
      return progress.Report((i + share) / paths.size());
    });
    if (!loaded.ok()) {
      progress.Close();
      if (loaded.status().code() != engine::StatusCode::kCancelled)
        QMessageBox::warning(this, "Cannot open the trace",
                             QString::fromStdString(loaded.status().message()));
      return false;
    }
    hosts.push_back({session::HostNameOf(paths[i].toStdString()), loaded->model});
  }
  progress.Close();
  trace::MergedHosts merged = trace::MergeHosts(hosts);
  QString text = QString::fromStdString(merged.verdict) + "\n";
  for (const auto& [host, summary] : merged.hosts) {
    text += QString("\n%1: %2 steps, input wait %3%, device busy %4%")
                .arg(QString::fromStdString(host))
                .arg(summary.steps)
                .arg(100 * summary.input_wait_fraction, 0, 'f', 0)
                .arg(100 * summary.device_busy_fraction, 0, 'f', 0);
  }
  for (const auto& w : merged.warnings) statusBar()->showMessage(QString::fromStdString(w), 10000);
  ShowModel(std::move(merged.model), QString("%1 hosts").arg(paths.size()));
  hosts_verdict_ = text;
  Refresh();
  return true;
}

void MainWindow::ShowModel(std::shared_ptr<trace::Model> model, const QString& title) {
  StopRunAndWait();
  tuning_.reset();
  live_.reset();
  have_spec_ = false;
  hosts_verdict_.clear();
  Show(std::move(model), nullptr, title);
  pipeline_->ShowTrace(*model_);
  pipeline_->ShowOrder({}, false);
  UpdateRunActions();
}

void MainWindow::Show(std::shared_ptr<trace::Model> model, std::mutex* lock, const QString& title) {
  timeline_->SetModel(nullptr);  // before the previous model (and its run's lock) goes
  model_ = std::move(model);
  model_lock_ = lock;
  title_ = title;
  notes_unsaved_ = false;
  sel_t0_ = sel_t1_ = 0;
  setWindowTitle(title + " - Pipescope");
  timeline_->SetModel(model_, lock, lock != nullptr);
  gap_label_->setText(kGapHint);
  // A finished recording or a saved trace; a live run is advised when it ends.
  if (lock == nullptr && model_->run_info().imported_from.empty()) {
    advice_->Start(model_);
  } else if (model_->run_info().imported_from == "pytorch") {
    advice_->StartWhatIf(model_);
  } else {
    advice_->Clear();
  }
  {
    // Notes change only when added or removed here; a run records none of its own.
    const auto guard = LockModel(lock);
    notes_->ShowNotes(model_->annotations());
  }
  Refresh();
}

bool MainWindow::WriteWithProgress(
    const QString& label, const QString& failure_title,
    const std::function<engine::Status(const std::function<bool(double)>&)>& write) {
  ModalProgress progress(this, "", label);
  const engine::Status status = write([&](double share) { return progress.Report(share); });
  progress.Close();
  if (status.ok()) return true;
  if (status.code() != engine::StatusCode::kCancelled)
    QMessageBox::warning(this, failure_title, QString::fromStdString(status.message()));
  return false;
}

bool MainWindow::SaveTrace(const QString& path) {
  if (!model_) return false;
  StopRunAndWait();
  const bool written =
      WriteWithProgress("Saving " + QFileInfo(path).fileName() + "...", "Cannot save the trace",
                        [&](const std::function<bool(double)>& progress) {
                          return pstrace::WriteModel(*model_, path.toStdString(), progress);
                        });
  if (!written) return false;
  notes_unsaved_ = false;
  title_ = QFileInfo(path).fileName();
  setWindowTitle(title_ + " - Pipescope");
  RememberRecent(path);
  statusBar()->showMessage("Saved " + path, 5000);
  return true;
}

bool MainWindow::ExportTrace(const QString& path) {
  if (!model_) return false;
  StopRunAndWait();
  const bool written = WriteWithProgress(
      "Exporting " + QFileInfo(path).fileName() + "...", "Cannot export the trace",
      [&](const std::function<bool(double)>& progress) {
        return session::WriteTraceFile(*model_, path.toStdString(), progress);
      });
  if (!written) return false;
  statusBar()->showMessage("Exported " + path, 5000);
  return true;
}

void MainWindow::ExportDialog() {
  if (!model_) return;
  QSettings settings;
  QString filter = settings.value("files/export_filter").toString();
  const QString filters = TraceDialogFilters(true);
  QString path = QFileDialog::getSaveFileName(
      this, "Export the trace as", settings.value("files/save_dir").toString(), filters, &filter);
  if (path.isEmpty()) return;
  if (session::WrittenFormatNamedBy(path.toStdString()) == nullptr) {
    // No extension the formats know: the chosen filter's first one.
    for (const session::TraceFormat& f : session::TraceFormats()) {
      if (filter.startsWith(QString::fromUtf8(f.name))) {
        path += QString::fromStdString(f.extensions.front());
        break;
      }
    }
  }
  settings.setValue("files/export_filter", filter);
  settings.setValue("files/save_dir", QFileInfo(path).absolutePath());
  ExportTrace(path);
}

void MainWindow::SaveDialog() {
  if (!model_) return;
  if (run_is_live() &&
      QMessageBox::question(this, "Save the trace",
                            "The run is still going. Stop it and save its trace?") !=
          QMessageBox::Yes) {
    return;
  }
  QSettings settings;
  const QString dir = settings.value("files/save_dir").toString();
  const session::TraceFormat& pstrace = session::TraceFormatOf(session::TraceFormatId::kPstrace);
  const QString extension = QString::fromStdString(pstrace.extensions.front());
  QString path = QFileDialog::getSaveFileName(this, "Save trace as", dir, DialogFilter(pstrace));
  if (path.isEmpty()) return;
  if (!path.endsWith(extension)) path += extension;
  settings.setValue("files/save_dir", QFileInfo(path).absolutePath());
  SaveTrace(path);
}

void MainWindow::RequestNote(int64_t t0, int64_t t1) {
  bool ok = false;
  const QString text = QInputDialog::getMultiLineText(
      this, "Add a note",
      t1 > t0 ? QString("A note on the range %1 to %2:")
                    .arg(QString::fromStdString(FormatDuration(t0)),
                         QString::fromStdString(FormatDuration(t1)))
              : QString("A note at %1:").arg(QString::fromStdString(FormatDuration(t0))),
      QString(), &ok);
  if (ok && !text.trimmed().isEmpty()) AddNote(t0, t1, text.trimmed());
}

void MainWindow::AddNote(int64_t t0, int64_t t1, const QString& text) {
  if (!model_) return;
  QSettings settings;
  const QString author = settings.value("user/name", qEnvironmentVariable("USER")).toString();
  {
    const auto guard = LockModel(model_lock_);
    model_->AddAnnotation({t0, std::max(t0, t1), text.toStdString(), author.toStdString()});
    notes_->ShowNotes(model_->annotations());
  }
  notes_unsaved_ = true;
  setWindowTitle(title_ + " * - Pipescope");
  timeline_->update();
}

bool MainWindow::ConfirmDiscardNotes() {
  if (!notes_unsaved_) return true;
  const auto answer = QMessageBox::question(
      this, "Unsaved notes", "The notes added to this trace are not saved. Save the trace first?",
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) {
    SaveDialog();
    return !notes_unsaved_;
  }
  return true;
}

QString MainWindow::verdict_text() const { return verdict_->text(); }
QString MainWindow::advice_text() const { return advice_->text(); }
bool MainWindow::advising() const { return advice_->pending(); }
QString MainWindow::status_text() const { return status_->text(); }
QString MainWindow::range_text() const { return range_label_->text(); }

void MainWindow::RememberRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("recent_files").toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
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
  if (!ConfirmDiscardNotes()) {
    e->ignore();
    return;
  }
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  // Presenter mode hides docks for the projector: keep the layout from before it.
  settings.setValue("window/state", presenter_ && !state_before_presenter_.isEmpty()
                                        ? state_before_presenter_
                                        : focus_.LayoutToKeep());
  StopRun();
  e->accept();
}

}  // namespace pipescope::ui
