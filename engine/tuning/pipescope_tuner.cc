#include "engine/tuning/pipescope_tuner.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/runtime/pipeline.h"
#include "engine/spec/op_values.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "engine/tuning/core_allocation.h"

namespace pipescope::engine {
namespace {

// The knobs this tuner sets: maps' and parallel interleaves' parallelism, and the
// buffer of the last prefetch.
struct KnobRef {
  std::string op;
  std::string knob;
  int64_t value;
};

std::vector<KnobRef> TunableKnobs(const spec::PipelineSpec& spec) {
  std::vector<KnobRef> knobs;
  for (const auto& op : spec.ops()) {
    if (op.has_map()) {  // sequential maps too: they become parallel if that helps
      knobs.push_back({op.name(), "num_parallel_calls", op.map().num_parallel_calls()});
    }
    if (op.has_interleave() && op.interleave().num_parallel_calls() != 0) {
      knobs.push_back({op.name(), "num_parallel_calls", op.interleave().num_parallel_calls()});
    }
  }
  if (spec.ops_size() > 0 && spec.ops(spec.ops_size() - 1).has_prefetch()) {
    const auto& last = spec.ops(spec.ops_size() - 1);
    knobs.push_back({last.name(), "buffer_size", last.prefetch().buffer_size()});
  }
  return knobs;
}

// Maps up to 64 workers; an interleave up to its cycle length (more would idle).
int64_t MaxParallelism(const spec::PipelineSpec& spec, const std::string& name) {
  for (const auto& op : spec.ops()) {
    if (op.name() == name && op.has_interleave())
      return std::max<int64_t>(CycleLength(op.interleave()), 1);
  }
  return 64;
}

// The share of an op's own time that computes: an io_wait map and an interleave reading
// files mostly wait.
double CpuFraction(const spec::PipelineSpec& spec, const std::string& name) {
  for (const auto& op : spec.ops()) {
    if (op.name() != name) continue;
    if (op.has_map() && op.map().fn().has_io_wait()) return 0;
    if (op.has_interleave()) return 0.1;
  }
  return 1;
}

}  // namespace

Result<TunerResult> TunePipescope(const spec::PipelineSpec& spec, const Measurer& measure,
                                  const TunerOptions& options) {
  const TuningStopwatch stopwatch;
  const int cores = CpuCoresFor(spec, options.cores);
  TunerResult result;
  const auto initial_knobs = TunableKnobs(spec);
  ASSIGN_OR_RETURN(TunerMeasurement best, MeasureAsGiven(spec, measure, result));
  const TunerMeasurement given = best;
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
    const auto knobs = TunableKnobs(result.tuned);
    for (const auto& k : knobs) {
      if (k.knob != "num_parallel_calls") continue;
      const auto it = figures.find(k.op);
      if (it == figures.end()) continue;
      // An interleave's workers run its sub-pipeline (stages named "<interleave>.<op>").
      double work = 0;
      for (const auto& f : a.stages) {
        if (f.name == k.op || f.name.rfind(k.op + ".", 0) == 0)
          work += f.self_ns_per_element * f.elements_per_s / a.steps_per_s;
      }
      ops.push_back(
          {k.op, work, MaxParallelism(result.tuned, k.op), CpuFraction(result.tuned, k.op)});
      op_knobs.push_back(&k);
    }
    const double device_step_ns = a.device_busy_fraction / a.steps_per_s * 1e9;
    const CoreAllocation alloc = AllocateCores(ops, device_step_ns, cores);
    spec::PipelineSpec candidate = result.tuned;
    std::string change;
    for (size_t i = 0; i < ops.size(); ++i) {
      const std::string assignment =
          op_knobs[i]->op + ".num_parallel_calls=" + std::to_string(alloc.parallelism[i]);
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
    if (SpecToText(candidate) == SpecToText(result.tuned)) {
      result.log.push_back("round " + std::to_string(round) + ": " + change +
                           " (limit: " + alloc.limit + "): nothing left to change");
      break;
    }
    ASSIGN_OR_RETURN(TunerMeasurement measured, measure(candidate));
    const bool better = measured.steps_per_s > best.steps_per_s * (1 + options.min_gain);
    result.log.push_back("round " + std::to_string(round) + ": " + change + " (limit: " +
                         alloc.limit + ") -> " + std::to_string(measured.steps_per_s) + " steps/s" +
                         (better ? ", kept" : ", not better: stop"));
    if (!better) break;
    result.tuned = std::move(candidate);
    result.cpu_cores_busy = alloc.cpu_cores_busy;
    best = std::move(measured);
  }
  const auto final_knobs = TunableKnobs(result.tuned);
  std::vector<TunedKnob> knobs;
  for (size_t i = 0; i < initial_knobs.size() && i < final_knobs.size(); ++i) {
    knobs.push_back({initial_knobs[i].op + "." + initial_knobs[i].knob, initial_knobs[i].value,
                     final_knobs[i].value});
  }
  FinishTuning(spec, given, std::move(best), std::move(knobs), stopwatch.elapsed_s(), result);
  return result;
}

}  // namespace pipescope::engine
