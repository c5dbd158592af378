#pragma once
// Run > Run as Workers: the spec as several data-parallel workers of one job on this
// machine (session/workers.h: each its own pipeline, each shard's index its worker number),
// for a few seconds behind a progress dialog, then shown as one trace with a lane group per
// worker ("worker1: decode"), as several hosts' traces are, with the job's figures: all
// workers' steps per second together and a synchronous job's, which waits for the slowest.

#include <QString>
#include <memory>
#include <optional>

#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/trace/model.h"

class QWidget;

namespace pipescope::ui {

struct WorkersView {
  std::shared_ptr<trace::Model> model;  // the workers' traces merged on one clock
  QString title;                        // "input_bound_demo: 4 workers"
  QString in_all;                       // "150.1 steps/s in all"
  QString verdict;                      // the job's figures, then each worker's
};

// Runs `spec` as `workers` workers for `seconds`, recorded on the engine; null when
// cancelled, or when it failed (said in a message box over `window`).
std::optional<WorkersView> RunAsWorkers(QWidget* window, const spec::PipelineSpec& spec,
                                        int workers, double seconds);

}  // namespace pipescope::ui
