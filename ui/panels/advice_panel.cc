#include "ui/panels/advice_panel.h"

#include <QHBoxLayout>
#include <QPushButton>
#include <QThread>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "app/session/advising.h"
#include "app/session/trace_whatif.h"
#include "engine/tuning/advisor.h"
#include "instrumentation/trace/analysis.h"
#include "ui/trace_document.h"

namespace pipescope::ui {

namespace {

const QChar kWrapHere(0x200B);  // zero-width space: a line may break here

// The run being advised on keeps the cores: the simulations of its changes take what it
// leaves. The calling thread (live_pool_'s only one) gets nice 10, about a tenth of a core
// the run wants; it keeps it for the live advice that follows.
void RunBehindTheRun() {
#ifdef __linux__
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#endif
}

}  // namespace

AdvicePanel::AdvicePanel(QWidget* parent) : QWidget(parent) {
  live_pool_.setMaxThreadCount(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  heading_ = new QLabel(this);
  heading_->setWordWrap(true);
  heading_->setMinimumWidth(1);
  heading_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  heading_->setMargin(6);
  layout->addWidget(heading_);
  rows_ = new QVBoxLayout;
  layout->addLayout(rows_);
  connect(&watcher_, &QFutureWatcher<engine::Result<engine::AdvisorResult>>::finished, this,
          [this] { Show(watcher_.result()); });
  connect(&whatif_watcher_, &QFutureWatcher<engine::Result<std::string>>::finished, this,
          [this] { ShowWhatIf(whatif_watcher_.result()); });
  hide();
}

AdvicePanel::~AdvicePanel() {
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
  whatif_watcher_.waitForFinished();
}

void AdvicePanel::ClearRows() {
  // Out of sight at once: deleted later, a row would still be drawn beside its replacement
  // until the event loop comes round (a screenshot taken as new advice arrives showed the
  // live run's rows under the final heading).
  for (QWidget* w : row_widgets_) {
    rows_->removeWidget(w);
    w->hide();
    w->deleteLater();
  }
  row_widgets_.clear();
}

void AdvicePanel::Clear(const QString& why) {
  if (cancel_) cancel_->store(true);
  cancel_.reset();
  model_.reset();
  pending_ = false;
  advice_.reset();
  ClearRows();
  heading_->setText(why);
  setVisible(!why.isEmpty());
}

void AdvicePanel::Start(std::shared_ptr<const trace::Model> model) {
  Advise(std::move(model), false);
}

void AdvicePanel::AdviseLive(const TraceDocument& document) {
  if (!document.recording() || live_source_.lock() == document.shared_model()) return;
  std::shared_ptr<const trace::Model> snapshot;
  {
    const auto guard = document.Lock();
    if (document.model()->duration_ns() < kLiveAdviceAfterNs) return;
    snapshot = document.model()->Snapshot();
  }
  live_source_ = document.shared_model();
  Advise(std::move(snapshot), true);
}

void AdvicePanel::Advise(std::shared_ptr<const trace::Model> model, bool live) {
  Clear();
  live_ = live;
  if (!model || model->run_info().spec_text.empty()) return;  // an imported trace
  if (!model->knob_changes().empty()) {
    Clear(
        "Advice: none for a run whose knobs changed while it ran (its trace does not give one "
        "configuration's costs). Restart it with the knobs you want (Ctrl+Shift+F5) to get "
        "advice.");
    return;
  }
  model_ = std::move(model);
  pending_ = true;
  heading_->setText("Advice" + SoFar() + ": trying changes of knobs and order in the simulator…");
  show();
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto work = [model = model_, cancel = cancel_, live] {
    if (live) RunBehindTheRun();
    return session::AdviseOnTrace(*model, trace::AnalyzeSteady(*model),
                                  [cancel] { return cancel->load(); });
  };
  watcher_.setFuture(live ? QtConcurrent::run(&live_pool_, work) : QtConcurrent::run(work));
}

void AdvicePanel::StartWhatIf(std::shared_ptr<const trace::Model> model) {
  Clear();
  if (!model || model->run_info().imported_from != "pytorch") return;
  model_ = std::move(model);
  pending_ = true;
  heading_->setText("Advice: searching the DataLoader's settings in the simulator…");
  show();
  whatif_watcher_.setFuture(QtConcurrent::run([model = model_]() -> engine::Result<std::string> {
    ASSIGN_OR_RETURN(session::WhatIfSearch search, session::SearchWhatIfOnTrace(*model));
    return search.sentence;
  }));
}

void AdvicePanel::ShowWhatIf(const engine::Result<std::string>& sentence) {
  if (!model_) return;  // cleared while it worked
  pending_ = false;
  ClearRows();
  if (!sentence.ok()) {
    heading_->setText("Advice: none predicted (" +
                      QString::fromStdString(sentence.status().message()) +
                      "). What If (Ctrl+I) takes what the trace does not show.");
    return;
  }
  heading_->setText(QString("Advice (the DataLoader's settings searched in the simulator, on "
                            "this machine's %1 cores):")
                        .arg(std::max(1, QThread::idealThreadCount())));
  auto* row = new QWidget(this);
  auto* line = new QHBoxLayout(row);
  line->setContentsMargins(6, 0, 6, 0);
  auto* label = new QLabel(QString::fromStdString("• " + sentence.value()), row);
  label->setWordWrap(true);
  label->setMinimumWidth(1);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  line->addWidget(label, 1);
  auto* open = new QPushButton("What If…", row);
  open->setToolTip("Predict other settings, beside the trace (Ctrl+I)");
  connect(open, &QPushButton::clicked, this, &AdvicePanel::WhatIfRequested);
  line->addWidget(open, 0, Qt::AlignTop);
  rows_->addWidget(row);
  row_widgets_.push_back(row);
  emit Ready();
}

void AdvicePanel::Show(const engine::Result<engine::AdvisorResult>& result) {
  if (!model_) return;  // cleared while it worked
  pending_ = false;
  ClearRows();
  if (!result.ok()) {
    heading_->setText("Advice: none (" + QString::fromStdString(result.status().message()) + ")");
    return;
  }
  advice_ = result.value();
  const auto& a = *advice_;
  heading_->setText(QString("Advice%1 (%2)%3")
                        .arg(SoFar())
                        .arg(QString::fromStdString(engine::AdviceHeading(a)))
                        .arg(a.advice.empty() ? ": none gains." : ":"));
  for (const engine::Advice& advice : a.advice) {
    AddAdviceRow(
        "• " + advice.text,
        "kind: " + advice.kind + ", confidence: " + advice.confidence + "\n" + advice.change,
        advice.spec, advice.change);
  }
  if (const auto& t = a.together; !t.changes.empty()) {
    std::string change;
    for (const auto& c : t.changes) change += (change.empty() ? "" : ", ") + c;
    AddAdviceRow("• Together, " + engine::TogetherText(a), change, t.spec, change);
  }
  if (const std::string both = engine::StartUpAndTogetherText(a); !both.empty()) {
    const auto& t = a.start_up_and_together;
    std::string change;
    for (const auto& c : t.changes) change += (change.empty() ? "" : ", ") + c;
    AddAdviceRow("• First, then the steady changes: " + both, change, t.spec, change);
  }
  for (const std::string& n : a.not_tried) AddAdviceRow("Not tried: " + n, n, {}, "");
  emit Ready();
}

void AdvicePanel::AddAdviceRow(const std::string& text, const std::string& tooltip,
                               const spec::PipelineSpec& spec, const std::string& change) {
  auto* row = new QWidget(this);
  auto* line = new QHBoxLayout(row);
  line->setContentsMargins(6, 0, 6, 0);
  // Knob names wrap at their dots and underscores too (a zero-width space after each): a
  // narrow dock otherwise cuts "mapped_function.num_parallel_calls=3" off.
  QString shown = QString::fromStdString(text);
  for (const QChar c : {QChar('.'), QChar('_'), QChar('=')}) {
    shown.replace(c, QString(c) + kWrapHere);
  }
  auto* label = new QLabel(shown, row);
  label->setWordWrap(true);
  label->setMinimumWidth(1);  // wraps to the column, as the verdict above it
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setToolTip(QString::fromStdString(tooltip));
  line->addWidget(label, 1);
  if (spec.ops_size() > 0) {
    auto* run = new QPushButton("Run it", row);
    run->setToolTip("Run the pipeline with this change");
    connect(
        run, &QPushButton::clicked, this,
        [this, spec, change = QString::fromStdString(change)] { emit RunRequested(spec, change); });
    line->addWidget(run, 0, Qt::AlignTop);
  }
  rows_->addWidget(row);
  row_widgets_.push_back(row);
}

QString AdvicePanel::SoFar() const {
  if (!live_) return {};
  return QString(" on the run's first %1 s")
      .arg(static_cast<double>(model_->duration_ns()) / 1e9, 0, 'f', 1);
}

QString AdvicePanel::text() const {
  QString out = heading_->text();
  for (QWidget* row : row_widgets_) {
    for (auto* label : row->findChildren<QLabel*>()) {
      out += "\n" + QString(label->text()).remove(kWrapHere);
    }
  }
  return out;
}

}  // namespace pipescope::ui
