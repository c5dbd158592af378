#include "app/session/simulated_fit.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>
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

// Elements an op's function finished per second in the steady part.
double ElementsPerSecond(const trace::Model& trace, uint16_t op) {
  const int64_t t1 = trace.duration_ns();
  const int64_t t0 = t1 / 4;
  int64_t elements = 0;
  for (const trace::Track* t : trace.TracksOf(EventKind::kWork, op)) {
    const size_t first = t->FirstStartingAtOrAfter(t0);
    elements += t->CallsIn(first, t->FirstStartingAtOrAfter(t1, first));
  }
  return t1 > t0 ? static_cast<double>(elements) / (static_cast<double>(t1 - t0) / 1e9) : 0;
}

// A simulation as long as the recorded run, from 1 s to kMaxSimulatedNs: what each round of
// matching simulates.
sim::SimulationOptions MatchingRun(const trace::Model& recorded) {
  sim::SimulationOptions options;
  options.duration_s = static_cast<double>(std::clamp<int64_t>(recorded.duration_ns(),
                                                               1'000'000'000, kMaxSimulatedNs)) /
                       1e9;
  return options;
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
  sim::SimulationOptions options = MatchingRun(recorded);
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

// Whether any of an op's threads waited for the interpreter lock in the steady part.
bool WaitedForTheLock(const trace::Model& trace, uint16_t op) {
  const int64_t t1 = trace.duration_ns();
  for (const trace::Track* t : trace.TracksOf(EventKind::kLockWait, op)) {
    if (t->SumRange(t1 / 4, t1).covered_ns > 0) return true;
  }
  return false;
}

struct LockTarget {
  uint16_t op;
  std::string name;
  double recorded;                 // elements per second (ElementsPerSecond)
  double low = 0, high = 1;        // the bracket of its share
  double at_none = 0, at_all = 0;  // simulated elements per second at shares 0 and 1
  bool fitted = false;             // its rate moves with its share: bisected
};

// The note for an op whose share the run cannot tell, `why`.
std::string KeptShare(const std::string& op, const std::string& why, double share) {
  std::ostringstream note;
  note << std::fixed << std::setprecision(2) << op << ": " << why
       << ", so the share of its Python under the interpreter lock cannot be read from the "
          "run; kept gil_share "
       << share;
  return note.str();
}

}  // namespace

void FitInterpreterLock(const trace::Model& recorded, const spec::PipelineSpec& spec,
                        sim::CostModel& model, std::vector<std::string>& notes) {
  std::vector<LockTarget> targets;
  for (const record::StageDef* stage : recorded.StagesInOrder()) {
    if (!stage->asynchronous || !stage->Has(record::kTraitHoldsInterpreterLock) ||
        model.ops.count(stage->name) == 0) {
      continue;
    }
    if (!WaitedForTheLock(recorded, stage->id)) {
      notes.push_back(KeptShare(stage->name, "no thread of it waited for the interpreter lock",
                                model.ops[stage->name].gil_share));
      continue;
    }
    if (const double rate = ElementsPerSecond(recorded, stage->id); rate > 0) {
      targets.push_back({stage->id, stage->name, rate});
    }
  }
  if (targets.empty()) return;
  sim::SimulationOptions options = MatchingRun(recorded);
  // Simulates with each target's share as `share_of` says; the simulated elements per second
  // by target, or nothing on an error (noted).
  auto simulate = [&](auto share_of) -> std::optional<std::vector<double>> {
    sim::CostModel trial = model;
    for (LockTarget& t : targets) trial.ops[t.name].gil_share = share_of(t);
    trace::Model simulated;
    options.sinks = {&simulated};
    auto result = sim::Simulate(spec, trial, options);
    if (!result.ok()) {
      notes.push_back("fitting the interpreter lock's share: " + result.status().message() +
                      "; kept the spec's");
      return std::nullopt;
    }
    std::vector<double> rates;
    rates.reserve(targets.size());
    for (const LockTarget& t : targets) rates.push_back(ElementsPerSecond(simulated, t.op));
    return rates;
  };
  const auto none = simulate([](const LockTarget&) { return 0.0; });
  const auto all = none ? simulate([](const LockTarget&) { return 1.0; }) : std::nullopt;
  if (!all) return;
  bool any_fitted = false;
  for (size_t i = 0; i < targets.size(); ++i) {
    LockTarget& t = targets[i];
    t.at_none = (*none)[i];
    t.at_all = (*all)[i];
    // A share that moves the rate by less than 2% cannot be read from it: the cores, not the
    // lock, set the pace.
    if (t.at_all <= 0 || t.at_none < 1.02 * t.at_all) {
      notes.push_back(KeptShare(t.name,
                                "its simulated rate does not move with it (the cores, "
                                "not the lock, set its pace)",
                                model.ops[t.name].gil_share));
      continue;
    }
    t.fitted = any_fitted = true;
  }
  if (!any_fitted) return;
  constexpr int kBisections = 6;  // a share to within 1/64
  for (int round = 0; round < kBisections; ++round) {
    const auto rates = simulate([&](const LockTarget& t) {
      return t.fitted ? (t.low + t.high) / 2 : model.ops[t.name].gil_share;
    });
    if (!rates) return;
    for (size_t i = 0; i < targets.size(); ++i) {
      LockTarget& t = targets[i];
      if (!t.fitted) continue;
      // Faster than the run: more of it under the lock.
      ((*rates)[i] > t.recorded ? t.low : t.high) = (t.low + t.high) / 2;
    }
  }
  for (const LockTarget& fit : targets) {
    if (!fit.fitted) continue;
    const LockTarget* t = &fit;
    sim::OpCost& c = model.ops[t->name];
    // Slower than all of it under the lock by more than a run's noise (3%): the machine's
    // or the lock's own lateness, which no share gives.
    const bool beyond = t->recorded < 0.97 * t->at_all;
    const double share = beyond ? 1.0 : (t->low + t->high) / 2;
    std::ostringstream note;
    note << std::fixed << std::setprecision(2) << t->name << ": gil_share " << share
         << " (the spec's " << c.gil_share << ")" << std::setprecision(1);
    if (beyond) {
      note << "; its workers finished " << t->recorded
           << " elements/s, fewer than the simulator's turns under the interpreter lock give "
              "with all of its Python under it ("
           << t->at_all
           << "): the run's turns were slower than the lock explains (a busy machine, or a "
              "lock that changes hands late)";
    } else {
      note << ", so that its simulated rate, its turns under the interpreter lock included, is "
              "the recorded "
           << t->recorded << " elements/s";
    }
    notes.push_back(note.str());
    c.gil_share = share;
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
