#include "ui/tune_controller.h"

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>

#include "app/session/measurement.h"
#include "ui/panels/tuning_chart.h"
#include "ui/run_controller.h"

namespace pipescope::ui {
namespace {

QString Text(const std::string& s) { return QString::fromStdString(s); }

// "decode.num_parallel_calls 1 -> 2, prefetch.buffer_size 2 -> 4" (changed knobs only).
QString KnobMoves(const engine::TunerResult& r) {
  QStringList moves;
  for (const auto& k : r.knobs) {
    if (k.before != k.after)
      moves << QString("%1 %2 -> %3").arg(Text(k.name)).arg(k.before).arg(k.after);
  }
  return moves.isEmpty() ? QString("no knob changed") : moves.join(", ");
}

}  // namespace

TuneController::TuneController(QWidget* window, RunController* run, QLabel* label,
                               TuningChart* chart)
    : window_(window), run_(run), label_(label), chart_(chart) {
  connect(run_, &RunController::Stopping, this, [this] {
    if (tuning_) tuning_->Stop();
  });
  connect(run_, &RunController::Discarding, this, [this] {
    tuning_.reset();
    Refresh();
  });
  connect(run_, &RunController::ActionsChanged, this, &TuneController::Refresh);
}

TuneController::~TuneController() = default;

void TuneController::BuildMenu(QMenu* tune) {
  tune_pipescope_ =
      tune->addAction("Autotune Live with &Pipescope", QKeySequence(Qt::CTRL | Qt::Key_T), this,
                      [this] { StartTuning("pipescope"); });
  tune_pipescope_->setToolTip(
      "Measures each op from the trace, gives cores to the slowest, sizes the prefetch, "
      "verifies, repeats until a round gains under 2%");
  tune_tfdata_ = tune->addAction("Autotune Live with &tf.data's Model",
                                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T), this,
                                 [this] { StartTuning("tfdata"); });
  tune_tfdata_->setToolTip("tf.data's AUTOTUNE: its performance model and hill climb");
  periodic_ = tune->addAction("Re-tune &Periodically", this,
                              [](bool on) { QSettings().setValue("tuning/periodic", on); });
  periodic_->setCheckable(true);
  periodic_->setChecked(QSettings().value("tuning/periodic", false).toBool());
  periodic_->setToolTip("Tune again after 10 s, then 20 s, 40 s... (as tf.data re-optimises)");
  stop_tuning_ = tune->addAction("&Stop Tuning", QKeySequence(Qt::CTRL | Qt::Key_Period), this,
                                 &TuneController::StopTuning);
  Refresh();
}

bool TuneController::StartTuning(const QString& algorithm) {
  if (!run_->is_live()) {
    emit Message("Autotuning works on a live run: open a pipeline spec first.", 8000);
    return false;
  }
  tuning_.reset();  // a previous tuning, finished or not
  session::LiveTuning::Options options;
  options.algorithm = algorithm.toStdString();
  options.periodic = periodic_ != nullptr && periodic_->isChecked();
  options.settle_s = times_.settle_s;
  options.measure_s = times_.measure_s;
  options.tuner.ram_bytes = session::DefaultRamBudgetBytes();
  auto tuning = session::LiveTuning::Start(*run_->live_run(), options);
  if (!tuning.ok()) {
    QMessageBox::warning(window_, "Cannot autotune", Text(tuning.status().message()));
    return false;
  }
  tuning_ = std::move(tuning).value();
  emit Message("Autotuning with " + algorithm +
                   ": its knob moves are marked on the timeline. Ctrl+. stops it.",
               8000);
  Refresh();
  return true;
}

void TuneController::StopTuning() {
  if (tuning_) tuning_->Stop();
  Refresh();
}

void TuneController::Refresh() {
  const bool tuning = tuning_ && !tuning_->progress().finished;
  if (stop_tuning_ != nullptr) {
    stop_tuning_->setEnabled(tuning);
    tune_pipescope_->setEnabled(run_->is_live() && !tuning);
    tune_tfdata_->setEnabled(run_->is_live() && !tuning);
  }
  if (!tuning_) {
    label_->hide();
    chart_->hide();
    return;
  }
  const auto progress = tuning_->progress();
  if (progress.trials.size() != chart_->trials().size()) chart_->SetTrials(progress.trials);
  chart_->setVisible(!progress.trials.empty());
  const QString who = Text(tuning_->options().algorithm);
  QString text;
  if (progress.last) {
    text = QString("Autotuned (%1): %2 -> %3 steps/s: %4.")
               .arg(who)
               .arg(progress.last->steps_per_s_before, 0, 'f', 1)
               .arg(progress.last->steps_per_s_after, 0, 'f', 1)
               .arg(KnobMoves(*progress.last));
  }
  if (!progress.finished) {
    const QString now = progress.log.empty() ? QString("starting") : Text(progress.log.back());
    text += (text.isEmpty() ? "" : " ") + QString("Autotuning (%1): %2").arg(who, now);
  } else if (!progress.outcome.ok()) {
    text += (text.isEmpty() ? "" : " ") +
            QString("Autotuning stopped: %1").arg(Text(progress.outcome.message()));
  }
  label_->setText(text);
  label_->show();
}

QString TuneController::tuning_text() const {
  return label_->isVisibleTo(label_->parentWidget()) ? label_->text() : QString();
}

}  // namespace pipescope::ui
