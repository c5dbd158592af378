#include "engine/tuning/tfdata_tuner.h"

#include <map>
#include <set>
#include <utility>

#include "engine/runtime/pipeline.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/spec/pipeline_plan.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "engine/tuning/tfdata_model.h"

namespace pipescope::engine {
namespace {

using tfdata::Node;
using tfdata::NodeKind;

struct ChainOfSpec {
  tfdata::Chain chain;
  std::vector<std::string> knob_of_node;  // "op.num_parallel_calls", "op.buffer_size" or ""
  std::vector<bool> autotuned_of_node;    // that knob is AUTOTUNE in the spec
};

// tf.data's autotuner moves only what the program leaves to it (tf.data.AUTOTUNE, -1): a
// num_parallel_calls or buffer_size written as a number stays. So where some knob of the
// user's spec is AUTOTUNE, the ones written as numbers are held, every round (a round's
// values are numbers too). Where none is, every knob is tuned as if it were, so that this
// tuner and Pipescope's decide the same knobs (the tuners' comparison, scripts/bench-tuners),
// and the log says so.
struct HeldKnobs {
  bool as_tf_data = false;      // some knob is AUTOTUNE: only those move
  std::set<std::string> names;  // the knobs written as numbers, then held
};

HeldKnobs HandSetKnobs(const ChainOfSpec& given) {
  HeldKnobs held;
  for (size_t i = 0; i < given.knob_of_node.size(); ++i) {
    if (given.knob_of_node[i].empty()) continue;
    if (given.autotuned_of_node[i]) {
      held.as_tf_data = true;
    } else {
      held.names.insert(given.knob_of_node[i]);
    }
  }
  if (!held.as_tf_data) held.names.clear();
  return held;
}

void HoldKnobs(ChainOfSpec& model, const HeldKnobs& held) {
  for (size_t i = 0; i < model.chain.nodes.size(); ++i) {
    if (!held.names.contains(model.knob_of_node[i])) continue;
    model.chain.nodes[i].parallelism_tunable = false;
    model.chain.nodes[i].buffer_tunable = false;
    model.knob_of_node[i].clear();
  }
}

// The model chain of a planned spec's top-level ops with the measured figures of each. An
// interleave's sub-pipeline becomes one node before it, with the sub-ops' self times.
// Knobs are read where the run starts them (the plan's one rule): AUTOTUNE, written or
// left out, at the CPU budget, as tf.data starts it.
ChainOfSpec BuildChain(const PipelinePlan& plan, const trace::RangeAnalysis& a) {
  const spec::PipelineSpec& spec = *plan.spec;
  std::map<std::string, const trace::StageFigures*> figures;
  for (const auto& s : a.stages) figures[s.name] = &s;
  auto self_of = [&](const std::string& name) {
    auto it = figures.find(name);
    return it == figures.end() ? 0.0 : it->second->self_ns_per_element;
  };
  auto rate_of = [&](const std::string& name) {
    auto it = figures.find(name);
    return it == figures.end() ? 0.0 : it->second->elements_per_s;
  };
  ChainOfSpec out;
  Node source{spec.source().name(), NodeKind::kSource, self_of(spec.source().name())};
  out.chain.nodes.push_back(source);
  out.knob_of_node.push_back("");
  out.autotuned_of_node.push_back(false);
  std::string previous = spec.source().name();
  for (const PlannedOp& planned : plan.ops) {
    const spec::Op& op = *planned.op;
    auto start_of = [&](std::string_view knob) {
      return std::max<int64_t>(planned.Knob(knob).start, 1);
    };
    Node n;
    n.name = op.name();
    n.self_ns = self_of(op.name());
    const double in = rate_of(previous), here = rate_of(op.name());
    n.ratio = in > 0 && here > 0 ? in / here : 1;
    std::string knob;  // the knob of the op the tuner decides, if any
    bool autotuned = false;
    auto decide = [&](std::string_view name) {
      knob = op.name() + "." + std::string(name);
      autotuned = planned.Knob(name).autotune();
    };
    // What each op is to tf.data's model, from its description (op_kinds.h), never its kind.
    const ParallelWork work = planned.kind->parallel_work;
    if (work == ParallelWork::kFunction || work == ParallelWork::kWorkerProcesses ||
        work == ParallelWork::kEnqueuerWorkers) {
      // Every map is a candidate (HandSetKnobs holds those set by hand where the spec
      // leaves others to AUTOTUNE); so are a DataLoader's workers (its batches are its
      // elements) and a Keras enqueuer's.
      const char* knob_name = work == ParallelWork::kFunction          ? "num_parallel_calls"
                              : work == ParallelWork::kEnqueuerWorkers ? "workers"
                                                                       : "num_workers";
      n.kind = NodeKind::kAsync;
      n.ratio = 1;
      n.parallelism_tunable = true;
      n.parallelism = start_of(knob_name);
      n.buffer = 0;  // the parallelism
      decide(knob_name);
    } else if (work == ParallelWork::kOneProducer) {
      n.kind = NodeKind::kAsync;
      n.ratio = 1;
      n.buffer_tunable = true;
      n.buffer = start_of("buffer_size");
      decide("buffer_size");
    } else if (const int64_t batch_size = BatchSizeOf(op); batch_size > 0) {
      n.kind = NodeKind::kSync;
      n.ratio = static_cast<double>(batch_size);
    } else if (work == ParallelWork::kSubPipelines) {
      // Its sub-pipeline's stages are named "<interleave>.<stage>", the per-element source
      // included; their work per interleave output is their own self time (one each).
      double sub_self = 0;
      for (const auto& [name, f] : figures) {
        if (name.starts_with(op.name() + ".")) sub_self += f->self_ns_per_element;
      }
      out.chain.nodes.push_back({op.name() + " inputs", NodeKind::kSync, sub_self, 1});
      out.knob_of_node.push_back("");
      out.autotuned_of_node.push_back(false);
      n.cycle_length = start_of("cycle_length");
      if (planned.Knob("num_parallel_calls").written != 0) {
        n.kind = NodeKind::kAsyncInterleave;
        n.parallelism_tunable = true;
        n.parallelism = start_of("num_parallel_calls");
        decide("num_parallel_calls");
      } else {
        n.kind = NodeKind::kInterleave;
      }
    } else {
      n.kind = NodeKind::kSync;
    }
    out.chain.nodes.push_back(n);
    out.knob_of_node.push_back(knob);
    out.autotuned_of_node.push_back(autotuned);
    previous = op.name();
  }
  return out;
}

// The knobs the tuner decides ("op.knob") with their values in the planned spec: where the
// run starts them, or AUTOTUNE where the spec leaves them to it.
std::vector<std::pair<std::string, int64_t>> DecidedKnobs(const PipelinePlan& plan,
                                                          const HeldKnobs& held) {
  ChainOfSpec model = BuildChain(plan, {});
  HoldKnobs(model, held);
  std::vector<std::pair<std::string, int64_t>> knobs;
  for (size_t i = 0; i < model.chain.nodes.size(); ++i) {
    const Node& n = model.chain.nodes[i];
    const std::string& knob = model.knob_of_node[i];
    if (knob.empty()) continue;
    knobs.push_back({knob, model.autotuned_of_node[i] ? kAutotune
                           : n.buffer_tunable         ? n.buffer
                                                      : n.parallelism});
  }
  return knobs;
}

}  // namespace

Result<TunerResult> TuneTfData(const spec::PipelineSpec& spec, const Measurer& measure,
                               const TunerOptions& options) {
  const TuningStopwatch stopwatch;
  const int cores = CpuCoresFor(spec, options.cores);
  TunerResult result;
  ASSIGN_OR_RETURN(TunerMeasurement current,
                   MeasureAsGiven(spec, measure, options, stopwatch, result));
  const TunerMeasurement given = current;
  ASSIGN_OR_RETURN(const PipelinePlan planned_before, PlanPipeline(spec, cores));
  const HeldKnobs held = HandSetKnobs(BuildChain(planned_before, {}));
  for (int round = 1; round <= options.max_rounds && stopwatch.elapsed_s() < options.budget_s;
       ++round) {
    result.rounds = round;
    const trace::RangeAnalysis& a = current.analysis;
    if (a.steps_per_s <= 0) break;
    ASSIGN_OR_RETURN(const PipelinePlan plan, PlanPipeline(result.tuned, cores));
    ChainOfSpec model = BuildChain(plan, a);
    HoldKnobs(model, held);
    for (tfdata::Node& n : model.chain.nodes) {
      const auto bytes = current.element_bytes.find(n.name);
      if (bytes != current.element_bytes.end())
        n.bytes_per_element = static_cast<double>(bytes->second);
    }
    const double gap = a.device_busy_fraction / a.steps_per_s * 1e9;  // device time per step
    tfdata::Budget budget;
    budget.cores = cores;
    budget.ram_bytes = options.ram_bytes;
    std::vector<std::string> steps;
    if (round == 1 && options.explain) {
      std::string decided;
      for (const std::string& knob : model.knob_of_node) {
        if (!knob.empty()) decided += (decided.empty() ? "" : ", ") + knob;
      }
      result.log.push_back(
          !held.as_tf_data ? "  no knob of the spec is AUTOTUNE, so tf.data would tune none; every "
                             "parallelism and buffer is tuned here as if it were: " +
                                 decided
                           : "  the knobs the spec leaves to AUTOTUNE, as tf.data tunes them: " +
                                 decided + " (the ones set to a number stay)");
    }
    const tfdata::Chain tuned =
        tfdata::HillClimb(model.chain, gap, budget, 1 << 10, options.explain ? &steps : nullptr);
    for (const std::string& step : steps) result.log.push_back("  " + step);
    spec::PipelineSpec candidate = result.tuned;
    std::string change;
    for (size_t i = 0; i < tuned.nodes.size(); ++i) {
      const std::string& knob = model.knob_of_node[i];
      if (knob.empty()) continue;
      const Node& n = tuned.nodes[i];
      const int64_t value = n.buffer_tunable ? n.buffer : n.parallelism;
      RETURN_IF_ERROR(ApplyOverride(candidate, knob + "=" + std::to_string(value)));
      change += (change.empty() ? "" : ", ") + knob + "=" + std::to_string(value);
    }
    if (SpecToText(candidate) == SpecToText(result.tuned)) {
      result.log.push_back("round " + std::to_string(round) + ": " + change + ": unchanged, stop");
      break;
    }
    result.tuned = std::move(candidate);
    // tf.data re-optimises on a timer whose period doubles; here every round re-optimises
    // on a fresh measurement of what the previous round chose.
    ASSIGN_OR_RETURN(current, MeasureUntilKnown(result.tuned, measure, options, stopwatch, result));
    result.log.push_back("round " + std::to_string(round) + ": " + change + " -> " +
                         RateForPeople(current));
  }
  ASSIGN_OR_RETURN(const PipelinePlan planned_after, PlanPipeline(result.tuned, cores));
  const auto before = DecidedKnobs(planned_before, held);
  const auto after = DecidedKnobs(planned_after, held);
  std::vector<TunedKnob> knobs;
  for (size_t i = 0; i < before.size() && i < after.size(); ++i)
    knobs.push_back({after[i].first, before[i].second, after[i].second});
  FinishTuning(spec, given, std::move(current), std::move(knobs), stopwatch.elapsed_s(), result);
  return result;
}

}  // namespace pipescope::engine
