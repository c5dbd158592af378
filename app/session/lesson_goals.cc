#include "app/session/lesson_goals.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/lineage.h"

namespace pipescope::session {
namespace {

using record::EventKind;
using Traces = std::vector<std::shared_ptr<trace::Model>>;

struct Figure {
  double value = 0;
  std::string missing;  // non-empty: cannot be measured, and why
};

Figure Missing(std::string why) { return Figure{0, std::move(why)}; }

const record::StageDef* Op(const trace::Model& m, const std::string& name) {
  return m.StageNamed(name);
}

int64_t Produced(const trace::Model& m, uint16_t op, int64_t t0) {
  int64_t n = 0;
  for (const trace::Track* t : m.TracksOf(EventKind::kCall, op)) {
    n += static_cast<int64_t>(t->size() - t->FirstStartingAtOrAfter(t0));
  }
  return n;
}

const record::StageDef* Source(const trace::Model& m) {
  for (const record::StageDef* s : m.StagesInOrder()) {
    if (s->depth == 0 && s->input < 0) return s;
  }
  return nullptr;
}

// Elements of `op` per unit of `per`, over the steady part.
Figure OpRatio(const trace::Model& m, const std::string& op_name, const std::string& per) {
  const record::StageDef* op = Op(m, op_name);
  if (!op) return Missing("the pipeline has no op '" + op_name + "'");
  const int64_t t0 = m.duration_ns() / 4;
  const double n = static_cast<double>(Produced(m, op->id, t0));
  double denominator = 0;
  if (per == "step") {
    denominator = static_cast<double>(trace::Analyze(m, t0, m.duration_ns()).steps);
  } else if (per == "row") {
    denominator = static_cast<double>(trace::Analyze(m, t0, m.duration_ns()).elements);
  } else if (const record::StageDef* source = Source(m)) {
    denominator = static_cast<double>(Produced(m, source->id, t0));
  }
  if (denominator <= 0) return Missing("nothing reached the training step");
  return Figure{n / denominator, ""};
}

Figure TimeSlicing(const trace::Model& m, const std::string& op_name) {
  const record::StageDef* op = Op(m, op_name);
  if (!op) return Missing("the pipeline has no op '" + op_name + "'");
  double span = 0, cpu = 0;
  for (const trace::Track* t : m.TracksOf(EventKind::kWork, op->id)) {
    for (size_t i = 0; i < t->size(); ++i) span += static_cast<double>(t->duration(i));
  }
  const std::string prefix = op->name + "/";
  for (const auto& [id, name] : m.threads()) {
    if (name.rfind(prefix, 0) != 0) continue;
    if (const trace::Track* t = m.FindTrack({EventKind::kCpuTime, record::kNoOp, id})) {
      for (size_t i = 0; i < t->size(); ++i) cpu += t->value(i);
    }
  }
  if (span <= 0 || cpu <= 0) return Missing("'" + op_name + "' ran no work on worker threads");
  return Figure{span / cpu, ""};
}

Figure RepeatedBatches(const trace::Model& m) {
  trace::Lineage lineage(m);
  std::set<std::vector<int64_t>> first;
  int64_t later = 0, repeated = 0;
  for (const auto& batch : lineage.ConsumedBatches()) {
    if (batch.size() < 2) continue;
    std::vector<int64_t> records;
    for (const auto& r : batch) records.push_back(r.index);
    std::sort(records.begin(), records.end());
    if (batch.front().pass == 0) {
      first.insert(records);
    } else {
      ++later;
      repeated += first.count(records) ? 1 : 0;
    }
  }
  if (later == 0) return Missing("no batch of a second epoch reached the training step");
  return Figure{static_cast<double>(repeated) / static_cast<double>(later), ""};
}

std::vector<trace::RecordRef> FirstEpoch(const std::vector<trace::RecordRef>& records) {
  std::vector<trace::RecordRef> out;
  for (const auto& r : records) {
    if (r.pass == 0) out.push_back(r);
  }
  return out;
}

Figure ShuffleDisplacement(const trace::Model& m) {
  trace::Lineage lineage(m);
  const auto received = FirstEpoch(lineage.Consumed());
  const double n = static_cast<double>(lineage.records_per_pass());
  if (received.empty() || n <= 0) return Missing("the first epoch did not complete");
  double sum = 0;
  for (size_t i = 0; i < received.size(); ++i) {
    sum += std::abs(static_cast<double>(received[i].index) - static_cast<double>(i));
  }
  return Figure{sum / static_cast<double>(received.size()) / n, ""};
}

Figure OutOfOrder(const trace::Model& m) {
  trace::Lineage lineage(m);
  const auto received = FirstEpoch(lineage.Consumed());
  if (received.size() < 2) return Missing("too few records reached the training step");
  int64_t late = 0, highest = -1;
  for (const auto& r : received) {
    if (r.index < highest) ++late;
    highest = std::max(highest, r.index);
  }
  return Figure{static_cast<double>(late) / static_cast<double>(received.size()), ""};
}

Figure Workers(const Traces& traces, const std::string& op_name, bool overlap) {
  std::map<int64_t, int> seen;  // record → workers that passed it on
  int64_t dataset = 0;
  for (const auto& m : traces) {
    const record::StageDef* op = Op(*m, op_name);
    if (!op) return Missing("the pipeline has no op '" + op_name + "'");
    trace::Lineage lineage(*m);
    if (lineage.records_per_pass() <= 0) return Missing("a worker did not finish its first epoch");
    dataset = std::max(dataset, lineage.records_per_pass());
    std::set<int64_t> mine;
    for (const auto& r : FirstEpoch(lineage.PassedOn(op->id))) mine.insert(r.index);
    for (int64_t r : mine) ++seen[r];
  }
  if (seen.empty()) return Missing("'" + op_name + "' passed nothing on");
  if (!overlap) return Figure{static_cast<double>(seen.size()) / static_cast<double>(dataset), ""};
  int64_t shared = 0;
  for (const auto& [record, workers] : seen) shared += workers > 1 ? 1 : 0;
  return Figure{static_cast<double>(shared) / static_cast<double>(seen.size()), ""};
}

Figure Measure(const LessonGoal& g, const Traces& traces) {
  const trace::Model& m = *traces.front();
  if (g.metric == "device_busy" || g.metric == "input_wait" || g.metric == "steps_per_s") {
    const auto a = trace::Analyze(m, m.duration_ns() / 4, m.duration_ns());
    if (a.steps == 0) return Missing("no training step ran");
    return Figure{g.metric == "device_busy"  ? a.device_busy_fraction
                  : g.metric == "input_wait" ? a.input_wait_fraction
                                             : a.steps_per_s,
                  ""};
  }
  if (g.metric == "calls_per_step") return OpRatio(m, g.op, "step");
  if (g.metric == "share_of_consumed") return OpRatio(m, g.op, "row");
  if (g.metric == "share_of_source") return OpRatio(m, g.op, "source");
  if (g.metric == "time_slicing") return TimeSlicing(m, g.op);
  if (g.metric == "repeated_batches") return RepeatedBatches(m);
  if (g.metric == "shuffle_displacement") return ShuffleDisplacement(m);
  if (g.metric == "out_of_order") return OutOfOrder(m);
  if (g.metric == "worker_overlap") return Workers(traces, g.op, true);
  if (g.metric == "worker_coverage") return Workers(traces, g.op, false);
  return Missing("unknown metric '" + g.metric + "'");
}

}  // namespace

const std::vector<std::string>& GoalMetrics() {
  static const std::vector<std::string> kMetrics = {
      "device_busy",          "input_wait",        "steps_per_s",     "calls_per_step",
      "share_of_source",      "share_of_consumed", "time_slicing",    "repeated_batches",
      "shuffle_displacement", "worker_overlap",    "worker_coverage", "out_of_order"};
  return kMetrics;
}

GoalResult EvaluateGoal(const LessonGoal& goal, const Traces& traces) {
  GoalResult r;
  r.goal = goal;
  if (traces.empty()) {
    r.note = "nothing ran";
    return r;
  }
  const Figure f = Measure(goal, traces);
  r.measured = f.missing.empty();
  r.note = f.missing;
  r.value = f.value;
  r.met = r.measured && f.value >= goal.at_least && f.value <= goal.at_most;
  return r;
}

}  // namespace pipescope::session
