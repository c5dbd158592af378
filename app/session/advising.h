#pragma once
// Advice for a run, a simulation or a saved trace of Pipescope's own: the advisor
// (engine/tuning/advisor.h) on the cost model that explains the run — calibrated from a
// recorded run, or the one a simulation ran on — and the verdict's suggestion replaced by
// what the simulator confirmed.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/sim/cost_model.h"
#include "engine/tuning/advisor.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/model.h"

namespace pipescope::session {

// Virtual seconds each change is simulated for at least, and at most: a pipeline whose
// first step comes late (a shuffle buffer filling, files opening) is simulated until the
// steps after it outweigh it, up to the most.
inline constexpr double kAdviceSimulatedSeconds = 5;
inline constexpr double kAdviceMostSimulatedSeconds = 120;
// How far a start-up is simulated to find its first step (StartUpCandidates).
inline constexpr double kAdviceMostStartUpSeconds = 3600;
// A pipeline of epochs (a repeat, a DataLoader) is simulated for as long as this many
// recorded events allow (about a tenth of a second of simulating each), up to the most, so
// that epoch boundaries (workers starting again, a cache replaying) fall in the window.
inline constexpr double kAdviceEventsPerSimulation = 400'000;

// A pipeline of many steps a second (and no epochs) is simulated for about this many of
// its measured steps, at least kAdviceLeastSimulatedSeconds: its rate is known well within
// the advice's noise long before 5 s, and simulating millions of steps for each change took
// minutes and gigabytes.
inline constexpr double kAdviceEnoughSteps = 20'000;
inline constexpr double kAdviceLeastSimulatedSeconds = 0.5;

// A run whose step takes no time (the input's own ceiling, asked when the step is the
// limit) ends after this many steps if its virtual seconds have not ended it first: the
// input can be many times faster than the step, and its rate is known well before.
inline constexpr int64_t kAdviceCeilingSteps = 4'000;

// Virtual seconds to simulate each change of `spec` on `model` for: 5 (less for a pipeline
// measured at `measured_steps_per_s` above kAdviceEnoughSteps in 5 s), or for a pipeline of
// epochs as long as kAdviceEventsPerSimulation allows (counts of steps and events, not a
// time, so that the advice is the same on a busy machine).
engine::Result<double> AdviceSeconds(const spec::PipelineSpec& spec, const sim::CostModel& model,
                                     double measured_steps_per_s = 0);

// The rate of a candidate spec on `model` (the model's costs for the ops it knows,
// by name, but those whose function the candidate changes from `given`'s, the spec the model
// was made for; the candidate's defaults for those and for ops it adds): steps per second
// after the first step and a quarter of the rest, so that neither filling buffers nor
// starting workers count; of a program that ends within the simulation (EndsEarly), its steps
// over its whole time, start-up included, where `whole_runs` (the given spec's run ended too,
// so rates are whole runs'), else its steady part's where it has one: a rate is compared with
// one of its kind. The training step's limit holds for it as for any rate the simulator
// gives; the step's cost is the model's times the rate's step_scale. `lengthen_for_epochs`
// false: each is simulated for `seconds` however its epochs fall (SimulateSteadyPart's).
engine::SimulatedRate SimulatedRateOn(sim::CostModel model,
                                      double seconds = kAdviceSimulatedSeconds,
                                      std::optional<spec::PipelineSpec> given = std::nullopt,
                                      bool whole_runs = true, bool lengthen_for_epochs = true);
// The time to a candidate's first step on `model`, simulated for up to `most_seconds`
// (AdvisorOptions::startup).
engine::SimulatedStartUp SimulatedStartUpOn(sim::CostModel model, double most_seconds,
                                            spec::PipelineSpec given);

// Advice for `spec` measured as `analysis`, on `model`.
// `cancelled`: asked between changes (none: never).
engine::Result<engine::AdvisorResult> AdviseOn(const spec::PipelineSpec& spec,
                                               const trace::RangeAnalysis& analysis,
                                               const sim::CostModel& model,
                                               std::function<bool()> cancelled = {},
                                               std::function<void(size_t, size_t)> progress = {});

// Advice for a trace of Pipescope's own (its spec in the header): a recording is
// calibrated first; a simulation's cost model is rebuilt from its spec (the model file it
// names, when it is there). Errors: an imported trace, a spec that no longer parses.
// `cores`: the machine the advice is for (report --cores), its CPU budget; 0: the run's.
engine::Result<engine::AdvisorResult> AdviseOnTrace(
    const trace::Model& trace, const trace::RangeAnalysis& analysis,
    std::function<bool()> cancelled = {}, double cores = 0,
    std::function<void(size_t, size_t)> progress = {});

// Adds to the verdict's evidence what the spec shows whatever the speed
// (engine::AdvisorFindings), each finding once; its text is made again by SetSuggestion.
void AddFindings(const std::vector<std::string>& findings, trace::Verdict& verdict);

// The verdict's suggestion becomes the first advice; when none was confirmed, a suggested
// change of knobs or order is replaced by saying so (other suggestions stay, with it).
// Nothing tried (no step in the simulation): the verdict stays.
void ApplyAdvice(const engine::AdvisorResult& advice, trace::Verdict& verdict);

}  // namespace pipescope::session
