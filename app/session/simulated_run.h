#pragma once
// A simulated run with its trace: what `pipescope-cli simulate` and the lessons do. The
// simulator's trace goes into a trace::Model (and a .pstrace file when asked) whose header
// says it was simulated and on which cost model, so every view and analysis takes it.

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "app/session/recorded_run.h"
#include "engine/sim/cost_model.h"
#include "engine/sim/simulator.h"
#include "engine/tuning/tuner.h"

namespace pipescope::session {

// The cost model to simulate `spec` with: the spec's defaults on `cores` cores (the spec's
// budget when it has one, else this machine's; a lesson's is in its spec), with the JSON file
// `model_path` laid over them when given.
engine::Result<sim::CostModel> CostModelFor(const spec::PipelineSpec& spec,
                                            const std::string& model_path);

struct SimulatedRunOptions {
  std::string trace_path;  // empty: the trace is kept in memory only
  std::string spec_path;   // stored in the trace header
  sim::SimulationOptions sim;
  // A live view: the model to simulate into, fed under the mutex (see RecordedRunOptions).
  std::shared_ptr<trace::Model> model;
  std::mutex* model_mutex = nullptr;
  // The model keeps the steps and the consumer's waits alone (Model::KeepStepsOnly): a run
  // that is measured by its rate, never shown. A trace file still gets every event.
  bool steps_only = false;
};

// Errors: the spec cannot be simulated, or the trace file cannot be created.
engine::Result<RecordedRunResult> RunSimulated(const spec::PipelineSpec& spec,
                                               const sim::CostModel& model,
                                               const SimulatedRunOptions& options);

// How long to simulate again a run of `seconds` whose first step came at `first_step_ns`
// (-1: none came) so that its steady part is graded: five times the first step's time, or
// `most_seconds` without one; nullopt when the first step came within a fifth of the run,
// or the run was as long as it may be. One rule for `simulate`, advice and the tuner.
std::optional<double> LongerRunSeconds(int64_t first_step_ns, double seconds, double most_seconds);

// The steps a run's figures are read from before `simulate` calls them its rate: fewer (a
// step of 0.6 s in the default 5 s) give a rate of ± its own size.
inline constexpr int64_t kEnoughStepsToGrade = 20;

// How long to simulate again a run of `seconds` that made only `steps` steps (fewer than
// kEnoughStepsToGrade), at their rate, at most `most_seconds`; nullopt where it made enough
// or was as long as it may be.
std::optional<double> LongerRunForSteps(int64_t steps, double seconds, double most_seconds);

// A simulated run graded on its steady part, as advice and the simulated tuner measure a
// candidate: trace::AnalyzeSteadyPart from its first step (a quarter in, whole epochs where
// they end there). A late first step runs it again
// (LongerRunSeconds; `options.sim.duration_s` is the first try's length), and so does a steady part
// of fewer than `min_steps` steps (a DataLoader's few slow batches come in bursts, and a rate
// graded on so few has an interval wider than the gains looked for), up to `most_seconds`.
struct SteadyRun {
  trace::RangeAnalysis steady;  // [first step + a quarter of the rest, end), in whole epochs
  int64_t first_step_ns = -1;
  int64_t end_ns = 0;        // the run's length
  int64_t steps = 0;         // every step of the run, the start-up's included
  bool end_of_data = false;  // the input ended before the run's time or steps did
  uint64_t events = 0;       // the simulator's events in the run
  double seconds = 0;        // the length simulated (the last try's)
};

// Epochs longer than a run (a DataLoader whose workers take a minute to start again at each
// epoch, mmpose#923): a run graded inside one epoch misses what starts every epoch, and a
// change that removes it (persistent_workers) shows no gain. How long to simulate again a
// run of `seconds` whose steady part held no whole epoch, so that two epochs end after its
// first step: three times the first epoch's end, or three times the run where none ended.
// nullopt where the pipeline has no epochs (trace::HasEpochs), the run held a whole one, its
// data ended, or the longer run would pass kEpochsMostSimulatedSeconds or, at the run's
// rate, kEpochsMostSteps or kEpochsMostEvents (a fast pipeline's long epochs, or an
// ImageNet epoch of large batches, cost the simulator more than their starts tell: a
// 2048-image batch is some 10,000 events, and advice on official/resnet's input took half an
// hour of tripled runs that never reached an epoch's end).
inline constexpr double kEpochsMostSimulatedSeconds = 3600;
inline constexpr int64_t kEpochsMostSteps = 5000;
inline constexpr double kEpochsMostEvents = 1'200'000;
std::optional<double> LongerRunForEpochs(const trace::Model& model, const SteadyRun& run,
                                         double seconds);

// What the input alone feeds (a run with a step that takes no time): its steady rate, but
// where the data ended before the steps after the first took as long as the start-up, every
// step came out of buffers filled in the start-up (an epoch held whole in a shuffle buffer,
// tensorflow#47687), and their burst's rate is no rate the input keeps: there it is the
// run's steps over the whole run, the start-up counted.
double InputAloneRate(const SteadyRun& run);
// Whether the input ended within the run: a program of a few epochs (the tf.data guide's
// benchmarks) whose time is its start-up and its epochs' starts as much as any steady part.
// Its rate is then WholeRunRate: its steps over its whole time, start-up included, as the
// program's own clock measures it.
bool EndsEarly(const SteadyRun& run);
double WholeRunRate(const SteadyRun& run);
// Errors: the spec cannot be simulated. A longest run that gave the step nothing (the
// simulator's stall) has a steady rate of 0 and first_step_ns -1. `lengthen_for_epochs`
// false: no run again for epochs (LongerRunForEpochs), where runs to compare are simulated
// for a length one of them decided (advice's candidates, graded as long as the spec itself:
// a candidate whose events passed kEpochsMostEvents was graded inside an epoch, the spec
// across epochs' starts, and a change of nothing showed +10%).
engine::Result<SteadyRun> SimulateSteadyPart(const spec::PipelineSpec& spec,
                                             const sim::CostModel& model,
                                             SimulatedRunOptions options, double most_seconds,
                                             int64_t min_steps = 0,
                                             bool lengthen_for_epochs = true);

// The tuners' what-if measurer: each candidate simulated for `seconds` of virtual time on
// the cost model of `model_path` (empty: the candidate spec's own costs) and graded on its
// steady part (SimulateSteadyPart, over kMeasuredSteps steps at least, up to
// kMeasuredMostSeconds), as MeasureSpec grades a recorded run without its first quarter.
inline constexpr double kMeasuredMostSeconds = 120;
inline constexpr int64_t kMeasuredSteps = 300;
engine::Measurer SimulatedMeasurer(std::string model_path, double seconds);

}  // namespace pipescope::session
