#include "app/session/advising.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "app/session/calibration.h"
#include "app/session/measurement.h"
#include "app/session/simulated_run.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/spec_loader.h"
#include "engine/tuning/cache_replay.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::session {

namespace {

// A simulated rate, and whether the program ended within the simulation (EndsEarly): then
// the rate is its whole run's.
struct RateOfRun {
  double steps_per_s = 0;
  bool ended = false;
  int64_t steps = 0;       // where it ended: the program's steps, its start-up's included
  double seconds = 0;      // and its time
  double simulated_s = 0;  // the length simulated (SteadyRun::seconds)
};

// `spec`'s steady rate on `model` with seed `seed`, simulated for `seconds` (longer where
// its first step comes late), up to `max_steps` steps (0: no limit); with `input_alone`
// (a step that takes no time), what the input feeds (InputAloneRate). A run that ends gives
// its whole run's rate, or with `whole_runs` false its steady part's where it has one.
// `lengthen_for_epochs`: SimulateSteadyPart's.
engine::Result<RateOfRun> SteadyRateOf(const spec::PipelineSpec& spec, const sim::CostModel& model,
                                       uint64_t seed, double seconds, int64_t max_steps,
                                       bool input_alone, bool whole_runs,
                                       bool lengthen_for_epochs) {
  SimulatedRunOptions options;
  options.sim.duration_s = seconds;
  options.sim.seed = seed;
  options.sim.max_steps = max_steps;
  options.steps_only = true;
  ASSIGN_OR_RETURN(SteadyRun run, SimulateSteadyPart(spec, model, options,
                                                     std::max(seconds, kAdviceMostSimulatedSeconds),
                                                     0, lengthen_for_epochs));
  const bool ended = EndsEarly(run);
  if (input_alone) return RateOfRun{InputAloneRate(run), ended, 0, 0, run.seconds};
  if (ended && (whole_runs || run.steady.steps_per_s <= 0)) {
    return RateOfRun{WholeRunRate(run), true, run.steps, static_cast<double>(run.end_ns) / 1e9,
                     run.seconds};
  }
  return RateOfRun{std::max(0.0, run.steady.steps_per_s), false, 0, 0, run.seconds};
}

// What decides the cost of the op named `name`: its work function (a map's, a loader's
// __getitem__) and the framework's dispatch of each call (a map's or a filter's
// call_overhead), at the top or inside an interleave; nullopt where no such op is.
std::optional<std::string> CostDefinitionNamed(
    const google::protobuf::RepeatedPtrField<spec::Op>& ops, const std::string& name) {
  for (const spec::Op& op : ops) {
    if (op.name() == name) {
      std::string definition;
      // A DataLoader's or Keras's __getitem__ is its work too (a dataset held in memory).
      if (op.has_dataloader()) definition = op.dataloader().getitem().SerializeAsString();
      if (op.has_keras_fit()) definition = op.keras_fit().getitem().SerializeAsString();
      if (const spec::WorkFunction* f = engine::FunctionOf(op)) definition = f->SerializeAsString();
      if (op.has_map()) definition += "\n" + op.map().call_overhead();
      if (op.has_filter()) definition += "\n" + op.filter().call_overhead();
      return definition;
    }
    if (op.has_interleave()) {
      if (auto d = CostDefinitionNamed(op.interleave().ops(), name)) return d;
    }
  }
  return std::nullopt;
}

// The run's cost model for a candidate: the candidate's own defaults (an op it adds), with
// every op, the step and the machine as the run's model has them, but for an op whose
// function or per-call cost the candidate gives anew (a Python map after batch, costing its
// rows; a filter run as tf.data's sampling op, with no call): the run measured another.
engine::Result<sim::CostModel> ModelForCandidate(const sim::CostModel& model,
                                                 const spec::PipelineSpec& candidate,
                                                 const spec::PipelineSpec* given) {
  ASSIGN_OR_RETURN(sim::CostModel merged, sim::DefaultCostModel(candidate, model.cores));
  // How many records a source gives is the candidate's own spec's (a stand-in's size scaled,
  // at the top or inside an interleave); the run's model has the costs of reading them.
  for (const auto& [name, cost] : model.ops) {
    if (given) {
      const auto was = CostDefinitionNamed(given->ops(), name);
      const auto now = CostDefinitionNamed(candidate.ops(), name);
      if (was && now && *was != *now) continue;
    }
    const auto own = merged.ops.find(name);
    const int64_t own_records = own != merged.ops.end() ? own->second.records : -1;
    merged.ops[name] = cost;
    if (own_records >= 0) merged.ops[name].records = own_records;
  }
  merged.oversubscription_cost = model.oversubscription_cost;
  merged.step = model.step;
  merged.loop_python = model.loop_python;
  merged.handoff_ns = model.handoff_ns;
  merged.handoff_giver_ns = model.handoff_giver_ns;
  merged.timer_wake = model.timer_wake;
  merged.startup_ns = model.startup_ns;
  merged.origin = model.origin;
  return merged;
}

}  // namespace

engine::Result<double> AdviceSeconds(const spec::PipelineSpec& spec, const sim::CostModel& model,
                                     double measured_steps_per_s) {
  bool epochs = false;
  for (const auto& op : spec.ops()) {
    const engine::OpKindDescription* d = engine::DescribeOp(op);
    epochs |= d && (d->ratio == engine::OutputRatio::kTimesCount ||
                    d->parallel_work == engine::ParallelWork::kWorkerProcesses ||
                    d->parallel_work == engine::ParallelWork::kEnqueuerWorkers);
  }
  if (!epochs) {
    if (measured_steps_per_s <= 0) return kAdviceSimulatedSeconds;
    return std::clamp(kAdviceEnoughSteps / measured_steps_per_s, kAdviceLeastSimulatedSeconds,
                      kAdviceSimulatedSeconds);
  }
  SimulatedRunOptions options;
  options.sim.duration_s = kAdviceSimulatedSeconds;
  options.steps_only = true;  // the simulator counts the events; the model need not keep them
  ASSIGN_OR_RETURN(RecordedRunResult run, RunSimulated(spec, model, options));
  const double events = std::max<double>(1, static_cast<double>(run.events));
  return std::clamp(kAdviceSimulatedSeconds * kAdviceEventsPerSimulation / events,
                    kAdviceSimulatedSeconds, kAdviceMostSimulatedSeconds);
}

namespace {

// A candidate's rate on the run's model (SimulatedRateOn's, with whether it ended).
engine::Result<RateOfRun> CandidateRate(const sim::CostModel& model, double seconds,
                                        const spec::PipelineSpec* given,
                                        const spec::PipelineSpec& candidate, uint64_t seed,
                                        double step_scale, bool whole_runs,
                                        bool lengthen_for_epochs) {
  const bool input_alone = step_scale == 0;
  const int64_t max_steps = step_scale < 1 ? kAdviceCeilingSteps : 0;
  const auto rate_of = [&](const spec::PipelineSpec& spec) -> engine::Result<RateOfRun> {
    ASSIGN_OR_RETURN(sim::CostModel merged, ModelForCandidate(model, spec, given));
    merged.step.mean_ns *= step_scale;
    return SteadyRateOf(spec, merged, seed, seconds, max_steps, input_alone, whole_runs,
                        lengthen_for_epochs);
  };
  // A cache's first epoch and its later ones, simulated apart and weighed over the epochs
  // (cache_replay.h); where the first epochs alone end within the window, the program with
  // the cache, sooner done, is simulated whole.
  if (const std::optional<engine::CachedEpochs> cached = engine::LaterEpochsOfACache(candidate)) {
    ASSIGN_OR_RETURN(RateOfRun first, rate_of(cached->first));
    if (!first.ended) {
      ASSIGN_OR_RETURN(const RateOfRun later, rate_of(cached->replay));
      first.steps_per_s =
          engine::RateOverEpochs(first.steps_per_s, later.steps_per_s, cached->epochs);
      return first;
    }
  }
  return rate_of(candidate);
}

}  // namespace

engine::SimulatedRate SimulatedRateOn(sim::CostModel model, double seconds,
                                      std::optional<spec::PipelineSpec> given, bool whole_runs,
                                      bool lengthen_for_epochs) {
  return [model = std::move(model), seconds, given = std::move(given), whole_runs,
          lengthen_for_epochs](const spec::PipelineSpec& candidate, uint64_t seed,
                               double step_scale) -> engine::Result<double> {
    ASSIGN_OR_RETURN(const RateOfRun rate,
                     CandidateRate(model, seconds, given ? &*given : nullptr, candidate, seed,
                                   step_scale, whole_runs, lengthen_for_epochs));
    return rate.steps_per_s;
  };
}

engine::SimulatedStartUp SimulatedStartUpOn(sim::CostModel model, double most_seconds,
                                            spec::PipelineSpec given) {
  return [model = std::move(model), most_seconds, given = std::move(given)](
             const spec::PipelineSpec& candidate, uint64_t seed) -> engine::Result<double> {
    ASSIGN_OR_RETURN(sim::CostModel merged, ModelForCandidate(model, candidate, &given));
    SimulatedRunOptions options;
    options.sim.duration_s = most_seconds;
    options.sim.seed = seed;
    options.sim.max_steps = 1;
    options.steps_only = true;
    ASSIGN_OR_RETURN(RecordedRunResult run, RunSimulated(candidate, merged, options));
    const int64_t first = trace::FirstStepNs(*run.model);
    if (first < 0) {
      return engine::OutOfRange("no step in " + std::to_string(most_seconds) +
                                " s of simulated time");
    }
    return static_cast<double>(first) / 1e9;
  };
}

namespace {

// A cost model from a file (calibrate's fit of a run) gives the ops' costs: none is a
// stand-in there.
void ClearStandInCosts(google::protobuf::RepeatedPtrField<spec::Op>& ops) {
  for (spec::Op& op : ops) {
    if (op.has_map()) op.mutable_map()->mutable_fn()->clear_cost_is_stand_in();
    if (op.has_dataloader()) op.mutable_dataloader()->mutable_getitem()->clear_cost_is_stand_in();
    if (op.has_keras_fit()) op.mutable_keras_fit()->mutable_getitem()->clear_cost_is_stand_in();
    if (auto* inner = engine::MutableSubPipelineOf(op)) ClearStandInCosts(*inner);
  }
}
void ClearStandInCosts(spec::PipelineSpec& spec) {
  if (spec.source().has_from_generator())
    spec.mutable_source()->mutable_from_generator()->clear_cost_is_stand_in();
  ClearStandInCosts(*spec.mutable_ops());
}

}  // namespace

engine::Result<engine::AdvisorResult> AdviseOn(const spec::PipelineSpec& given,
                                               const trace::RangeAnalysis& analysis,
                                               const sim::CostModel& model,
                                               std::function<bool()> cancelled,
                                               std::function<void(size_t, size_t)> progress) {
  spec::PipelineSpec spec = given;
  if (!model.file.empty()) ClearStandInCosts(spec);
  engine::AdvisorOptions options;
  options.cancelled = std::move(cancelled);
  options.progress = std::move(progress);
  options.cores = std::max(1, static_cast<int>(std::lround(model.cores)));
  options.machine_ram_bytes = static_cast<int64_t>(DefaultRamBudgetBytes());
  ASSIGN_OR_RETURN(double seconds, AdviceSeconds(spec, model, analysis.steps_per_s));
  // A run whose first step came late (a large shuffle buffer filling from slow storage) is
  // simulated long enough from the start for its steady part, not tried short first.
  const double startup_s = static_cast<double>(analysis.startup_ns) / 1e9;
  seconds = std::max(seconds, std::min(kAdviceMostSimulatedSeconds, 5 * startup_s));
  // A start-up is simulated to its first step, up to an hour (a buffer of millions filling).
  options.startup = SimulatedStartUpOn(model, kAdviceMostStartUpSeconds, spec);
  // A program that ends (the tf.data guide's two epochs of three elements) is graded whole.
  // Learnt from the spec's own simulation on seed 1, the advisor's first, which it then takes
  // from here rather than simulating again.
  // Its length, lengthened for epochs where they are longer than the run, is every other
  // rate's: each is graded over the same span, the same epochs' starts in it.
  ASSIGN_OR_RETURN(const RateOfRun first,
                   CandidateRate(model, seconds, &spec, spec, 1, 1, true, true));
  options.whole_run = first.ended;
  options.whole_run_steps = first.steps;
  options.whole_run_s = first.seconds;
  engine::SimulatedRate simulate =
      SimulatedRateOn(model, std::max(seconds, first.simulated_s), spec, first.ended, false);
  engine::SimulatedRate first_kept = [simulate = std::move(simulate), first,
                                      given = spec.SerializeAsString()](
                                         const spec::PipelineSpec& candidate, uint64_t seed,
                                         double step_scale) -> engine::Result<double> {
    if (seed == 1 && step_scale == 1 && candidate.SerializeAsString() == given)
      return first.steps_per_s;
    return simulate(candidate, seed, step_scale);
  };
  return engine::Advise(spec, analysis, first_kept, options);
}

namespace {

// The machine the advice is for, where it is given: the spec's CPU budget and the cost
// model's cores both, so the advisor plans for it and its heading names it as set.
void AdviseFor(double cores, spec::PipelineSpec& spec, sim::CostModel& model) {
  if (cores <= 0) return;
  spec.mutable_budget()->set_cpu_cores(std::max<int64_t>(1, std::lround(cores)));
  model.cores = cores;
}

}  // namespace

engine::Result<engine::AdvisorResult> AdviseOnTrace(const trace::Model& trace,
                                                    const trace::RangeAnalysis& analysis,
                                                    std::function<bool()> cancelled, double cores,
                                                    std::function<void(size_t, size_t)> progress) {
  const trace::RunInfo& info = trace.run_info();
  if (info.spec_text.empty()) {
    return engine::InvalidArgument(
        "the trace has no pipeline spec of Pipescope's own to advise on");
  }
  if (info.simulated) {
    ASSIGN_OR_RETURN(spec::PipelineSpec spec,
                     engine::ParseSpecText(info.spec_text, "trace header"));
    // The cost model it ran on, where the header names a model file that is still there
    // (`simulate --model`); else the spec's own costs.
    std::error_code ec;
    const std::filesystem::path named(info.cost_model);
    const std::string model_path =
        named.extension() == ".json" && std::filesystem::is_regular_file(named, ec)
            ? info.cost_model
            : "";
    ASSIGN_OR_RETURN(sim::CostModel model, CostModelFor(spec, model_path));
    if (info.machine.cpu_budget > 0) model.cores = info.machine.cpu_budget;
    AdviseFor(cores, spec, model);
    return AdviseOn(spec, analysis, model, std::move(cancelled), std::move(progress));
  }
  ASSIGN_OR_RETURN(Calibration calibration, Calibrate(trace, "the run"));
  if (cancelled && cancelled()) return engine::Cancelled("advice cancelled");
  AdviseFor(cores, calibration.spec, calibration.model);
  return AdviseOn(calibration.spec, analysis, calibration.model, std::move(cancelled),
                  std::move(progress));
}

void AddFindings(const std::vector<std::string>& findings, trace::Verdict& verdict) {
  for (const std::string& finding : findings) {
    if (verdict.evidence.find(finding) == std::string::npos) verdict.evidence += "; " + finding;
  }
}

// A gain below this is little beside a remedy outside the knobs.
constexpr double kLittleGain = 0.2;

// The best change where it is to another op than the one the verdict blames (a synchronous
// op on the blamed op's thread, whose own thread takes the two apart): said beside the blamed
// op's own best, so the two sentences do not seem to disagree.
std::string BesideTheBlamed(const engine::AdvisorResult& advice, const trace::Verdict& verdict) {
  const engine::Advice& best = advice.advice.front();
  // A knob change of another op's only: a move or a rewrite (a file split) may be the blamed
  // op's own change under another op's name.
  const bool others_knobs =
      !best.settings.empty() &&
      std::none_of(best.settings.begin(), best.settings.end(),
                   [&](const std::string& s) { return s.starts_with(verdict.bottleneck + "."); });
  if (!verdict.suggests_change || verdict.bottleneck.empty() || best.op.empty() ||
      best.op == verdict.bottleneck || !others_knobs) {
    return {};
  }
  for (const engine::Advice& a : advice.advice) {
    if (a.op != verdict.bottleneck) continue;
    return "; it gains more than the best change to " + verdict.bottleneck + " itself (" +
           a.change + ", " + trace::FormatPercentChange(a.predicted_gain) + ")";
  }
  return "; no change to " + verdict.bottleneck + " itself gains as much";
}

void ApplyAdvice(const engine::AdvisorResult& advice, trace::Verdict& verdict) {
  AddFindings(advice.findings, verdict);
  if (!advice.advice.empty()) {
    std::string text = advice.advice.front().text;
    // Where the verdict's remedy lies outside the knobs (Python under the interpreter lock,
    // less work per element) and the best knob gains little, the remedy leads and the knob
    // follows (tensorflow#44274: the lock, not deterministic=False's +4%).
    // A change that brings a late first step sooner leads whatever its steady gain: the run
    // waited for its first step (tensorflow#47687: 60 s behind a shuffle of batches).
    // The step the limit: the advice says it whole, with what the input alone feeds, where
    // the verdict's "a faster training step is what would help" would say it twice.
    if (advice.advice.front().kind == "device_bound" ||
        advice.advice.front().kind == "loop_bound") {
      trace::SetSuggestion(verdict, text);
      return;
    }
    if (!verdict.suggests_change && !verdict.suggestion.empty() &&
        !engine::LeadsWhateverItsGain(advice.advice.front()) &&
        advice.advice.front().predicted_gain < kLittleGain) {
      trace::SetSuggestion(verdict, verdict.suggestion +
                                        "; of the knobs and order, the best "
                                        "change tried gains little: " +
                                        text);
      return;
    }
    if (const std::string beside = BesideTheBlamed(advice, verdict); !beside.empty()) {
      // After a closing sentence of what the change alters, a sentence of its own.
      if (text.ends_with('.')) {
        std::string sentence = beside.substr(2);
        sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
        text += " " + sentence + ".";
      } else {
        text += beside;
      }
    }
    trace::SetSuggestion(verdict, text);
    return;
  }
  if (advice.tried == 0) {  // nothing reached the step in the simulation either
    trace::SetSuggestion(verdict, verdict.suggestion);  // the text with the findings
    return;
  }
  char noise[16];
  std::snprintf(noise, sizeof noise, "%.0f%%", 100 * advice.noise);
  std::string none = engine::NothingTriedGains(advice.tried, "of knobs and order", noise);
  // What could not be tried is said beside it, so that the verdict's "cache after it" does
  // not stand alone where the advice below says a cache was not tried (seed 004's stand-in
  // files).
  for (const std::string& n : advice.not_tried) none += "; not tried: " + n;
  if (verdict.suggests_change || verdict.suggestion.empty()) {
    trace::SetSuggestion(verdict, none);
  } else {
    trace::SetSuggestion(verdict, verdict.suggestion + " (" + none + ")");
  }
}

}  // namespace pipescope::session
