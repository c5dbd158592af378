#include "app/session/simulated_fit.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "engine/sim/simulator.h"

namespace pipescope::session {
namespace {

using record::EventKind;

constexpr int kMaxRounds = 4;
constexpr double kCloseEnough = 0.01;               // relative difference of the spans
constexpr double kMinScale = 0.5, kMaxScale = 2.0;  // of the fitted cost, over all rounds
constexpr int64_t kMaxSimulatedNs = 5'000'000'000;  // per round
constexpr int64_t kMinElements = 20;                // per op in the steady part

// Time per element of an op's function in the steady part of a trace (its last three
// quarters, as calibration takes): the kWork spans' total over the elements they cover
// (a simulated run stands for several).
double SpanPerElement(const trace::Model& trace, uint16_t op) {
  const int64_t t1 = trace.duration_ns();
  const int64_t t0 = t1 / 4;
  double total = 0;
  int64_t elements = 0;
  for (const trace::Track* t : trace.TracksOf(EventKind::kWork, op)) {
    const size_t first = t->FirstStartingAtOrAfter(t0);
    const size_t last = t->FirstStartingAtOrAfter(t1, first);
    total += static_cast<double>(t->SumDurations(first, last));
    elements += t->CallsIn(first, last);
  }
  return elements >= kMinElements ? total / static_cast<double>(elements) : -1;
}

struct Target {
  uint16_t op;
  std::string name;
  double recorded_ns;
  double scale = 1;  // applied so far
};

std::vector<Target> Targets(const trace::Model& recorded, const std::vector<std::string>& ops,
                            const sim::CostModel& model) {
  std::vector<Target> targets;
  for (const record::StageDef* stage : recorded.StagesInOrder()) {
    if (!stage->asynchronous || !stage->Has(record::kTraitParallelFunction)) continue;
    if (std::find(ops.begin(), ops.end(), stage->name) == ops.end()) continue;
    if (model.ops.count(stage->name) == 0) continue;
    const double span = SpanPerElement(recorded, stage->id);
    if (span > 0) targets.push_back({stage->id, stage->name, span});
  }
  return targets;
}

void Scale(sim::OpCost& c, double f) {
  c.cpu.mean_ns *= f;
  c.cpu_per_row.mean_ns *= f;
}

}  // namespace

void MatchSimulatedSpans(const trace::Model& recorded, const spec::PipelineSpec& spec,
                         const std::vector<std::string>& ops, sim::CostModel& model,
                         std::vector<std::string>& notes) {
  std::vector<Target> targets = Targets(recorded, ops, model);
  if (targets.empty()) return;
  sim::SimulationOptions options;
  options.duration_s = static_cast<double>(std::clamp<int64_t>(recorded.duration_ns(),
                                                               1'000'000'000, kMaxSimulatedNs)) /
                       1e9;
  for (int round = 0; round < kMaxRounds; ++round) {
    trace::Model simulated;
    options.sinks = {&simulated};
    auto result = sim::Simulate(spec, model, options);
    if (!result.ok()) {
      notes.push_back("matching the simulated spans: " + result.status().message() +
                      "; kept the fitted costs");
      return;
    }
    bool changed = false;
    for (Target& t : targets) {
      const double span = SpanPerElement(simulated, t.op);
      if (span <= 0) continue;
      const double ratio = t.recorded_ns / span;
      if (std::abs(ratio - 1) < kCloseEnough) continue;
      const double scale = std::clamp(t.scale * ratio, kMinScale, kMaxScale);
      if (scale == t.scale) continue;
      Scale(model.ops[t.name], scale / t.scale);
      t.scale = scale;
      changed = true;
    }
    if (!changed) break;
  }
  for (const Target& t : targets) {
    if (std::abs(t.scale - 1) < kCloseEnough) continue;
    std::ostringstream note;
    note << std::fixed << std::setprecision(2) << t.name << ": CPU per element x" << t.scale
         << " so that its simulated time per element matches the recorded " << std::setprecision(1)
         << t.recorded_ns / 1000
         << " us (it kept a core more to itself than the simulator's even sharing gives)";
    notes.push_back(note.str());
  }
}

namespace {

// When the first device step started; -1 if none did.
int64_t FirstStep(const trace::Model& trace) {
  int64_t first = -1;
  for (const trace::Track* t : trace.TracksOf(EventKind::kStep, record::kDeviceOp)) {
    if (!t->empty() && (first < 0 || t->first_start() < first)) first = t->first_start();
  }
  return first;
}

}  // namespace

void FitStartup(const trace::Model& recorded, const spec::PipelineSpec& spec, sim::CostModel& model,
                std::vector<std::string>& notes) {
  const int64_t recorded_first = FirstStep(recorded);
  if (recorded_first < 0) return;
  model.startup_ns = 0;
  trace::Model simulated;
  sim::SimulationOptions options;
  options.duration_s = 0;
  options.max_steps = 1;
  options.sinks = {&simulated};
  auto result = sim::Simulate(spec, model, options);
  if (!result.ok()) {
    notes.push_back("start-up: " + result.status().message() + "; kept none");
    return;
  }
  const int64_t simulated_first = FirstStep(simulated);
  if (simulated_first < 0) {
    notes.push_back("start-up: the simulation made no step; kept none");
    return;
  }
  model.startup_ns = std::max<int64_t>(0, recorded_first - simulated_first);
  std::ostringstream note;
  note << std::fixed << std::setprecision(1) << "start-up: the first step came at "
       << static_cast<double>(recorded_first) / 1e6 << " ms, "
       << static_cast<double>(model.startup_ns) / 1e6
       << " ms later than the costs alone give; the simulation starts that much late";
  notes.push_back(note.str());
}

}  // namespace pipescope::session
