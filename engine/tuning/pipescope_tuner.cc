#include "engine/tuning/pipescope_tuner.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "engine/runtime/dataloader_rules.h"
#include "engine/runtime/pipeline.h"
#include "engine/spec/op_values.h"
#include "engine/spec/pipeline_plan.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "engine/tuning/advice.h"
#include "engine/tuning/advice_candidates.h"
#include "engine/tuning/core_allocation.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {
namespace {

// The knobs this tuner sets, found through each op's description (op_kinds.h), never its
// kind: the parallelism of an op whose threads run a function (a sequential map becomes
// parallel if that helps), of one whose threads read sub-pipelines where it already does
// so in parallel (a sequential interleave keeps its order of reads), and the buffer of the
// last op where it is one producer (the prefetch before the step).
struct KnobRef {
  std::string op;
  std::string knob;
  int64_t value;            // as written
  int64_t most = 64;        // the most workers worth giving it
  double cpu_fraction = 1;  // the share of its own time that computes
};

std::vector<KnobRef> TunableKnobs(const spec::PipelineSpec& spec, int cores) {
  std::vector<KnobRef> knobs;
  auto plan = PlanPipeline(spec, cores);
  if (!plan.ok()) return knobs;  // measured as given, which says why
  for (size_t i = 0; i < plan->ops.size(); ++i) {
    const PlannedOp& p = plan->ops[i];
    const bool last = i + 1 == plan->ops.size();
    for (const PlannedKnob& knob : p.knobs) {
      const std::string_view name = knob.description->name;
      KnobRef ref{p.op->name(), std::string(name), knob.written};
      switch (p.kind->parallel_work) {
        case ParallelWork::kFunction:
          if (name != kNumParallelCallsKnob.name) continue;
          // A function that waits (io_wait, or a wait beside its work) takes no core then.
          if (const spec::WorkFunction* fn = FunctionOf(*p.op)) {
            ref.cpu_fraction = WorkFunctionCpuFraction(*fn);
          }
          break;
        case ParallelWork::kWorkerProcesses:  // a DataLoader's: from 1 worker up
          if (name != "num_workers") continue;
          break;
        case ParallelWork::kEnqueuerWorkers:  // Keras's: from 1 worker up
          if (name != "workers") continue;
          break;
        case ParallelWork::kSubPipelines:
          if (name != kNumParallelCallsKnob.name || knob.written == 0) continue;
          // Workers beyond the inputs it keeps open would idle; reading files mostly waits.
          ref.most = std::max<int64_t>(p.Knob("cycle_length").start, 1);
          ref.cpu_fraction = 0.1;
          break;
        case ParallelWork::kOneProducer:
          if (!last || name != "buffer_size") continue;
          break;
        case ParallelWork::kNone:
          continue;
      }
      knobs.push_back(std::move(ref));
    }
  }
  return knobs;
}

// The value in `spec` of the integer knob `assignment` ("op.knob=value") sets; nullopt where
// the knob is no integer (a true/false setting).
std::optional<int64_t> IntKnobBefore(const spec::PipelineSpec& spec,
                                     const std::string& assignment) {
  const std::string name = assignment.substr(0, assignment.find('='));
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  return ReadIntKnob(spec, name.substr(0, dot), name.substr(dot + 1));
}

// The integer `assignment` sets its knob to; nullopt where it sets no integer.
std::optional<int64_t> IntKnobAfter(const std::string& assignment) {
  const std::string value = assignment.substr(assignment.find('=') + 1);
  int64_t v = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (error != std::errc() || end != value.data() + value.size()) return std::nullopt;
  return v;
}

// The rest of the budget goes to the knob changes the advisor would try (advice_candidates.h),
// measured on the real engine one at a time: the smallest step of each kind for each op (a
// hill climb: the next pass starts from what was kept), the ops that caused the most waiting
// first, and of one op's steps those that keep the output. This is where the knobs
// water-filling does not set are searched: a read's deterministic and cycle_length, a
// loader's workers and prefetch_factor, and parallelisms beyond what the allocation
// expects (a read that waits longer than its self time says).
std::vector<AdviceCandidate> NextKnobSteps(const spec::PipelineSpec& spec,
                                           const trace::RangeAnalysis& measured, int cores,
                                           const TunerOptions& options,
                                           const std::set<std::string>& tried) {
  std::map<std::string, double> caused;
  for (const auto& s : measured.stages) caused[s.name] = s.caused_wait_share;
  std::vector<AdviceCandidate> steps;
  // Each op's steps of a kind, in the ladder's order: the smallest is measured, and the one
  // nearest twice the knob's value, so that a knob far from its best (reads from a store
  // that answers in 50 ms, best at four per core) gets there in a few passes, not one
  // thread a pass with gains too small to tell from the noise.
  std::map<std::pair<std::string, std::string>, std::vector<AdviceCandidate>> ladders;
  std::vector<std::pair<std::string, std::string>> order;
  for (AdviceCandidate& c : AdviceCandidates(spec, measured, cores)) {
    // A move, an added op or a change of the code's own: advice, not a knob.
    if (c.settings.empty() || AdviceOnly(c.needs_code_change, c.changes_machine)) continue;
    // A running pipeline takes its integer knobs; anything else needs a rebuild.
    const bool rebuilds = !std::all_of(c.settings.begin(), c.settings.end(), [&](const auto& s) {
      return IntKnobBefore(spec, s).has_value();
    });
    if (rebuilds && !options.try_rebuilds) continue;
    if (tried.count(SpecToText(c.spec))) continue;
    auto& ladder = ladders[{c.kind, c.op}];
    if (ladder.empty()) order.push_back({c.kind, c.op});
    ladder.push_back(std::move(c));
  }
  for (const auto& kind_op : order) {
    std::vector<AdviceCandidate>& ladder = ladders[kind_op];
    const std::optional<int64_t> now = IntKnobBefore(spec, ladder.front().settings.front());
    // Sequential (0) doubles to 2: one thread beside the consumer may gain nothing where
    // eight readers gain fourfold (minigo#520's interleave). AUTOTUNE (-1) is left to itself.
    const AdviceCandidate* doubled = nullptr;
    const int64_t target = now ? std::max<int64_t>(2, 2 * *now) : 0;
    for (size_t i = 1; now && *now >= 0 && i < ladder.size(); ++i) {
      const std::optional<int64_t> to = IntKnobAfter(ladder[i].settings.front());
      if (to && *to <= target) doubled = &ladder[i];
    }
    if (doubled) steps.push_back(*doubled);
    steps.push_back(std::move(ladder.front()));
  }
  // A step that keeps the output goes before one that changes it, when both gain alike.
  std::stable_sort(steps.begin(), steps.end(), [&](const auto& a, const auto& b) {
    if (caused[a.op] != caused[b.op]) return caused[a.op] > caused[b.op];
    return a.changes_output.empty() && !b.changes_output.empty();
  });
  return steps;
}

// The knobs of `given` and `tuned` that differ, beyond those TunableKnobs lists: the integer
// knobs the search set, and the rest (true/false) as the assignments that made them.
void ReportSearchedKnobs(const spec::PipelineSpec& given, const spec::PipelineSpec& tuned,
                         const std::vector<std::string>& settings, std::vector<TunedKnob>& knobs,
                         std::vector<std::string>& other) {
  for (const std::string& s : settings) {
    const std::string name = s.substr(0, s.find('='));
    if (std::any_of(knobs.begin(), knobs.end(), [&](const auto& k) { return k.name == name; }))
      continue;
    const auto before = IntKnobBefore(given, s);
    const auto after = IntKnobBefore(tuned, s);
    if (before && after) {
      knobs.push_back({name, *before, *after});
    } else if (std::find(other.begin(), other.end(), s) == other.end()) {
      other.push_back(s);
    }
  }
}

// How a measurement compares with the best so far, for the log: kept, slower, or a tie.
std::string ComparedWith(const TunerMeasurement& measured, const TunerMeasurement& best, bool kept,
                         const TunerOptions& options) {
  if (kept) return ", kept";
  if (ClearlyFaster(best, measured, options)) {
    return ", slower than " + RateForPeople(best) + ": not kept";
  }
  return ", not beyond the noise of " + RateForPeople(best) + ": not kept";
}

}  // namespace

Result<TunerResult> TunePipescope(const spec::PipelineSpec& spec, const Measurer& measure_steps,
                                  const TunerOptions& options) {
  // As the advisor counts them: a DataLoader whose every worker yields the whole
  // IterableDataset hands each batch out once per worker, and repeats are not progress
  // (engine::BatchCopies). A rate counts each batch once.
  const Measurer measure =
      [&measure_steps](const spec::PipelineSpec& s) -> Result<TunerMeasurement> {
    ASSIGN_OR_RETURN(TunerMeasurement m, measure_steps(s));
    const auto copies = static_cast<double>(BatchCopies(s));
    m.steps_per_s /= copies;
    m.half_width /= copies;
    return m;
  };
  const TuningStopwatch stopwatch;
  const int cores = CpuCoresFor(spec, options.cores);
  TunerResult result;
  for (const auto& op : spec.ops()) {
    if (!op.has_dataloader() || !op.dataloader().replicated()) continue;
    result.log.push_back("rates count each batch once: each worker of " + op.name() +
                         " yields the whole IterableDataset, so n workers hand every batch "
                         "out n times an epoch");
  }
  const auto initial_knobs = TunableKnobs(spec, cores);
  ASSIGN_OR_RETURN(TunerMeasurement best,
                   MeasureAsGiven(spec, measure, options, stopwatch, result));
  const TunerMeasurement given = best;
  std::set<std::string> tried{SpecToText(spec)};
  for (int round = 1; round <= options.max_rounds && stopwatch.elapsed_s() < options.budget_s;
       ++round) {
    result.rounds = round;
    const trace::RangeAnalysis& a = best.analysis;
    if (a.steps_per_s <= 0) break;
    // Work per step of each parallel op, from the trace: its own time per element times
    // the elements it produces per step.
    std::map<std::string, const trace::StageFigures*> figures;
    for (const auto& s : a.stages) figures[s.name] = &s;
    std::vector<ParallelOp> ops;
    std::vector<const KnobRef*> op_knobs;
    const auto knobs = TunableKnobs(result.tuned, cores);
    for (const auto& k : knobs) {
      // Every knob but the last prefetch's buffer is an op's workers: num_parallel_calls, a
      // DataLoader's num_workers, a Keras enqueuer's workers.
      if (k.knob == "buffer_size") continue;
      const auto it = figures.find(k.op);
      if (it == figures.end()) continue;
      // An interleave's workers run its sub-pipeline (stages named "<interleave>.<op>").
      double work = 0;
      for (const auto& f : a.stages) {
        if (f.name == k.op || f.name.rfind(k.op + ".", 0) == 0)
          work += f.self_ns_per_element * f.elements_per_s / a.steps_per_s;
      }
      ops.push_back({k.op, work, k.most, k.cpu_fraction});
      op_knobs.push_back(&k);
    }
    const double device_step_ns = a.device_busy_fraction / a.steps_per_s * 1e9;
    const CoreAllocation alloc = AllocateCores(ops, device_step_ns, cores);
    spec::PipelineSpec candidate = result.tuned;
    std::string change;
    for (size_t i = 0; i < ops.size(); ++i) {
      const std::string assignment =
          op_knobs[i]->op + "." + op_knobs[i]->knob + "=" + std::to_string(alloc.parallelism[i]);
      RETURN_IF_ERROR(ApplyOverride(candidate, assignment));
      change += (change.empty() ? "" : ", ") + assignment;
    }
    // The last prefetch absorbs the burstiness between producer and consumer: while the
    // consumer still waits with a nearly empty buffer the producer is too slow (cores fix
    // that); a waiting consumer with a buffer that does fill needs a deeper one.
    for (const auto& k : knobs) {
      if (k.knob != "buffer_size") continue;
      const auto it = figures.find(k.op);
      const double fill = it == figures.end() ? 0 : it->second->buffer_fill;
      int64_t size = std::max<int64_t>(k.value, 1);
      if (a.input_wait_fraction > 0.05 && fill > 0.5) size = std::min<int64_t>(2 * size, 16);
      RETURN_IF_ERROR(ApplyOverride(candidate, k.op + ".buffer_size=" + std::to_string(size)));
      change += (change.empty() ? "" : ", ") + k.op + ".buffer_size=" + std::to_string(size);
    }
    // A pipeline without such knobs has none to allocate: its settings (a DataLoader's
    // persistent_workers, a read's deterministic) are the single steps below.
    // The allocation's limit comes from the ops' work per step; a consumer that waits while
    // that work leaves the cores room waits on something else (worker start-ups, storage).
    const std::string limit = alloc.limit == "device" && a.input_wait_fraction > 0.2
                                  ? "device by the ops' work, though the consumer waits " +
                                        std::to_string(std::lround(100 * a.input_wait_fraction)) +
                                        "%: what it waits on is not work of the cores"
                                  : alloc.limit;
    const std::string round_name = "round " + std::to_string(round) + ": " +
                                   (change.empty() ? "no parallelism or buffer knob to allocate"
                                                   : change + " (predicted limit: " + limit + ")");
    if (!tried.insert(SpecToText(candidate)).second) {
      result.log.push_back(round_name + ": as it is, nothing to change");
      break;
    }
    ASSIGN_OR_RETURN(TunerMeasurement measured,
                     MeasureUntilKnown(candidate, measure, options, stopwatch, result));
    const bool better = ClearlyFaster(measured, best, options);
    result.log.push_back(round_name + " -> " + RateForPeople(measured) +
                         ComparedWith(measured, best, better, options));
    if (!better) break;
    result.tuned = std::move(candidate);
    result.cpu_cores_busy = alloc.cpu_cores_busy;
    best = std::move(measured);
  }

  // The search of single knob steps, while the budget lasts.
  std::vector<std::string> searched;  // the assignments of the steps kept
  if (best.analysis.input_wait_fraction < 0.02) {
    result.log.push_back("the consumer waits for input " +
                         std::to_string(std::lround(100 * best.analysis.input_wait_fraction)) +
                         "% of the time: the training step is the limit, no knob of the "
                         "pipeline can gain");
  }
  while (best.analysis.input_wait_fraction >= 0.02 && stopwatch.elapsed_s() < options.budget_s) {
    const auto steps = NextKnobSteps(result.tuned, best.analysis, cores, options, tried);
    // Every step from here is measured, and the fastest that gains beyond the noise kept:
    // the first that gains may close off a better one (num_workers 0, where persistent
    // workers need workers).
    std::optional<TunerMeasurement> fastest;
    const AdviceCandidate* fastest_step = nullptr;
    size_t measured_steps = 0;
    for (const AdviceCandidate& step : steps) {
      if (stopwatch.elapsed_s() >= options.budget_s) break;
      tried.insert(SpecToText(step.spec));
      ++measured_steps;
      ASSIGN_OR_RETURN(TunerMeasurement measured,
                       MeasureUntilKnown(step.spec, measure, options, stopwatch, result));
      const bool gains = ClearlyFaster(measured, best, options);
      result.log.push_back(
          std::string("try ") + step.action + " -> " + RateForPeople(measured) +
          (gains ? std::string(", gains") : ComparedWith(measured, best, false, options)));
      if (gains && (!fastest || measured.steps_per_s > fastest->steps_per_s)) {
        fastest = std::move(measured);
        fastest_step = &step;
      }
    }
    if (fastest) {
      result.log.push_back(
          "kept " + fastest_step->action + ": " + RateForPeople(*fastest) +
          (fastest_step->changes_output.empty() ? "" : " (" + fastest_step->changes_output + ")"));
      result.tuned = fastest_step->spec;
      best = std::move(*fastest);
      searched.insert(searched.end(), fastest_step->settings.begin(), fastest_step->settings.end());
      continue;  // the next steps start from here
    }
    if (measured_steps == steps.size()) {
      result.log.push_back(steps.empty() ? "no knob step left to try"
                           : steps.size() == 1
                               ? "the knob step left gains nothing beyond the noise: stop"
                               : "none of the " + std::to_string(steps.size()) +
                                     " knob steps left gains beyond the noise: stop");
    } else {
      result.log.push_back("the budget of " + std::to_string(std::lround(options.budget_s)) +
                           " s is spent");
    }
    break;
  }
  // A budget that ran out between rounds, or before the search began, is said as one that ran
  // out inside it is: what the tuning did not get to try.
  const std::string spent =
      "the budget of " + std::to_string(std::lround(options.budget_s)) + " s is spent";
  if (stopwatch.elapsed_s() >= options.budget_s &&
      (result.log.empty() || result.log.back() != spent)) {
    result.log.push_back(spent);
  }
  const auto final_knobs = TunableKnobs(result.tuned, cores);
  std::vector<TunedKnob> knobs;
  for (size_t i = 0; i < initial_knobs.size() && i < final_knobs.size(); ++i) {
    knobs.push_back({initial_knobs[i].op + "." + initial_knobs[i].knob, initial_knobs[i].value,
                     final_knobs[i].value});
  }
  ReportSearchedKnobs(spec, result.tuned, searched, knobs, result.other_settings);
  FinishTuning(spec, given, std::move(best), std::move(knobs), stopwatch.elapsed_s(), result);
  return result;
}

}  // namespace pipescope::engine
