#pragma once
// What-if on a PyTorch profiler trace: the job it shows (trace/import/loader_job.h) rebuilt
// as a DataLoader pipeline on the simulator, with the DataLoader's rules
// (engine/runtime/dataloader_rules.h), and simulated at other settings.
//
// The job's model, per step:
// - the training loop's own time (the step less its wait in __next__) is CPU on the loop's
//   thread (the cost model's step_host): forward, backward and the optimizer launching the
//   device's work, and the waits the device imposes on it, as measured;
// - each sample's __getitem__ is Python work holding its process's interpreter lock, and a
//   batch's collate is folded into it; a batch of `batch_bytes` crosses from a worker;
// - the costs are fitted so that the model at the traced settings reproduces the trace's
//   steady steps (its wait and its loop time), then the settings change and nothing else.
// What the trace cannot show (the cores, the workers' start-up, the worker count of a
// multi-process trace, a worker's cost when the workers kept up) is an assumption, listed
// with the prediction, or given with `given`.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/status.h"
#include "instrumentation/trace/import/loader_job.h"

namespace pipescope::session {

struct LoaderSettings {
  int64_t num_workers = 0;
  int64_t prefetch_factor = 2;
  int64_t batch_size = 1;
  bool pin_memory = false;
  bool persistent_workers = false;

  friend bool operator==(const LoaderSettings&, const LoaderSettings&) = default;
};

// The settings' names as DataLoader(...) spells its arguments, for --set and for printing.
// "dataloader." before a name is accepted too.
engine::Status SetLoaderKnob(LoaderSettings& settings, const std::string& name,
                             const std::string& value);
// "num_workers=4, prefetch_factor=2, pin_memory=False, ..." (Python's spelling).
std::string LoaderArguments(const LoaderSettings& s);
// The settings that differ, as "num_workers 0 → 4, pin_memory False → True".
std::string LoaderChanges(const LoaderSettings& from, const LoaderSettings& to);

struct WhatIfFigures {
  double steps_per_s = 0;
  double samples_per_s = 0;
  double input_wait_fraction = 0;   // of step time
  double device_busy_fraction = 0;  // of step time
};

struct WhatIfOptions {
  std::vector<std::pair<std::string, std::string>> sets;  // settings to change
  // What the trace does not show: "num_workers" of a multi-process trace, "getitem" (a
  // sample's __getitem__, a duration) where the workers kept up, "worker_startup".
  std::vector<std::pair<std::string, std::string>> given;
  double cores = 0;  // the traced machine's cores for this process; 0: this machine's
  uint64_t seed = 1;
};

struct WhatIfPrediction {
  LoaderSettings traced;
  LoaderSettings changed;
  WhatIfFigures measured;    // the trace's steady steps
  WhatIfFigures reproduced;  // the model at the traced settings: how well it fits
  WhatIfFigures predicted;
  double getitem_ns = 0;  // per sample, fitted or given
  double loop_ns = 0;     // the training loop's own time per step, fitted
  std::vector<std::string> assumptions;
  // A change of persistent_workers where the trace's workers start at each epoch: the
  // prediction over whole epochs, start-ups included ("over epochs of 5 steps ..."); the
  // steady figures above leave the starts out.
  std::string over_epochs;
  double epochs_measured_steps_per_s = 0;  // all the traced steps, epoch starts included
  double epochs_predicted_steps_per_s = 0;
  // The changed settings simulated for as many steps as the trace shows, for a timeline
  // beside the trace's.
  std::shared_ptr<trace::Model> predicted_trace;
};

engine::Result<WhatIfPrediction> PredictWhatIf(const trace::LoaderJob& job,
                                               const WhatIfOptions& options);

// "num_workers 0 → 4: 5.72 → 9.44 steps/s predicted (+65%)."
std::string PredictionSentence(const WhatIfPrediction& p);

// Without settings to change: the DataLoader's settings that give the most steps per second
// (the fewest workers within 2% of it), and what limits them.
struct WhatIfSearch {
  WhatIfPrediction best;
  std::string limit;     // what stops more workers from helping, in the framework's terms
  std::string sentence;  // "num_workers 0 → 4: 5.7 → 9.3 steps/s predicted; ..."
  std::vector<std::pair<LoaderSettings, WhatIfFigures>> tried;
};
engine::Result<WhatIfSearch> SearchWhatIf(const trace::LoaderJob& job,
                                          const WhatIfOptions& options);
// The search on a trace's job with the defaults (this machine's cores): what `report` and
// the Verdict dock advise on a PyTorch trace.
// `cores`: the traced machine's (0: this machine's).
engine::Result<WhatIfSearch> SearchWhatIfOnTrace(const trace::Model& model, double cores = 0);

}  // namespace pipescope::session
