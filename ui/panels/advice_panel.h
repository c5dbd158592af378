#pragma once
// The advice under the verdict: after a run ends, or when a trace of Pipescope's own opens,
// every change of knobs and order is tried in the simulator in the background
// (session/advising.h) and the ones that gain are listed, best first, each with a button
// that runs the pipeline with it. On a PyTorch profiler trace, the DataLoader's settings
// are searched instead (session/trace_whatif.h, what `report` prints), with a button that
// opens What If. While it works, it says so; a run whose knobs changed
// while it ran gets none (its trace does not say one configuration's costs). A live run is
// advised on what it has recorded so far, a few seconds in.

#include <QFutureWatcher>
#include <QLabel>
#include <QThreadPool>
#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>

#include "engine/core/status.h"
#include "engine/tuning/advisor.h"
#include "instrumentation/trace/model.h"

class QVBoxLayout;

namespace pipescope::ui {
class TraceDocument;
}

namespace pipescope::ui {

class AdvicePanel : public QWidget {
  Q_OBJECT
 public:
  explicit AdvicePanel(QWidget* parent = nullptr);
  ~AdvicePanel() override;

  // Advises on `model`, a finished run or a saved trace (not read while it records).
  void Start(std::shared_ptr<const trace::Model> model);
  // While `document`'s run records (called as the window refreshes): once the run has gone
  // kLiveAdviceAfterNs, advises on a snapshot of it so far (Model::Snapshot, taken under the
  // document's lock), on a thread of lower priority so that the run keeps the cores. Once
  // per run; the run's end advises again on all of it.
  void AdviseLive(const TraceDocument& document);
  static constexpr int64_t kLiveAdviceAfterNs = 3'000'000'000;
  // Searches the DataLoader's settings of a PyTorch profiler trace's job, in the background.
  void StartWhatIf(std::shared_ptr<const trace::Model> model);
  // Nothing to advise on (a live run, an imported trace).
  void Clear(const QString& why = {});
  // The advice for the model last started, once it is ready.
  const engine::AdvisorResult* advice() const { return advice_ ? &*advice_ : nullptr; }
  QString text() const;                      // what the panel shows, for tests
  bool pending() const { return pending_; }  // trying changes now

 signals:
  void Ready();  // advice() is set
  void RunRequested(const spec::PipelineSpec& spec, const QString& change);
  void WhatIfRequested();

 private:
  // `live`: `model` is a snapshot of a run still going.
  void Advise(std::shared_ptr<const trace::Model> model, bool live);
  // " on the run's first 3.1 s" for a live run's snapshot, else nothing.
  QString SoFar() const;
  void Show(const engine::Result<engine::AdvisorResult>& result);
  void ShowWhatIf(const engine::Result<std::string>& sentence);
  // A row of advice: its sentence, and a button that runs `spec` (where it has ops).
  void AddAdviceRow(const std::string& text, const std::string& tooltip,
                    const spec::PipelineSpec& spec, const std::string& change);
  void ClearRows();

  QLabel* heading_;
  QVBoxLayout* rows_;
  std::vector<QWidget*> row_widgets_;
  std::shared_ptr<const trace::Model> model_;
  std::weak_ptr<const trace::Model> live_source_;  // the live model last advised on
  bool live_ = false;                              // model_ is a snapshot of a live run
  QThreadPool live_pool_;                          // one thread of lower priority
  std::optional<engine::AdvisorResult> advice_;
  bool pending_ = false;
  // The advising under way stops at its next change when set (a new model, a closed window).
  std::shared_ptr<std::atomic<bool>> cancel_;
  QFutureWatcher<engine::Result<engine::AdvisorResult>> watcher_;
  QFutureWatcher<engine::Result<std::string>> whatif_watcher_;  // the search's sentence
};

}  // namespace pipescope::ui
