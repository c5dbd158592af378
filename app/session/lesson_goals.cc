#include "app/session/lesson_goals.h"

#include <algorithm>
#include <cmath>
#include <functional>
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

int64_t Produced(const trace::Model& m, uint16_t op, int64_t t0) {
  int64_t n = 0;
  for (const trace::Track* t : m.TracksOf(EventKind::kCall, op)) {
    n += t->CallsIn(t->FirstStartingAtOrAfter(t0), t->size());
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
  const record::StageDef* op = m.StageNamed(op_name);
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
  const record::StageDef* op = m.StageNamed(op_name);
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
    const record::StageDef* op = m->StageNamed(op_name);
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

Figure Summary(const trace::Model& m, double trace::RangeAnalysis::*figure) {
  const auto a = trace::Analyze(m, m.duration_ns() / 4, m.duration_ns());
  if (a.steps == 0) return Missing("no training step ran");
  return Figure{a.*figure, ""};
}

struct Metric {
  bool share;  // a fraction of a whole (read best as a percentage)
  std::function<Figure(const LessonGoal&, const Traces&)> measure;
};

// A figure of the first trace's summary.
Metric SummaryMetric(bool share, double trace::RangeAnalysis::*figure) {
  return {share,
          [figure](const LessonGoal&, const Traces& t) { return Summary(*t.front(), figure); }};
}

// Every metric and how it is measured (the first trace unless the metric compares workers).
const std::map<std::string, Metric>& Metrics() {
  static const std::map<std::string, Metric> kMetrics = {
      {"device_busy", SummaryMetric(true, &trace::RangeAnalysis::device_busy_fraction)},
      {"input_wait", SummaryMetric(true, &trace::RangeAnalysis::input_wait_fraction)},
      {"steps_per_s", SummaryMetric(false, &trace::RangeAnalysis::steps_per_s)},
      {"calls_per_step",
       {false,
        [](const LessonGoal& g, const Traces& t) { return OpRatio(*t.front(), g.op, "step"); }}},
      {"share_of_consumed",
       {true,
        [](const LessonGoal& g, const Traces& t) { return OpRatio(*t.front(), g.op, "row"); }}},
      {"share_of_source",
       {true,
        [](const LessonGoal& g, const Traces& t) { return OpRatio(*t.front(), g.op, "source"); }}},
      {"time_slicing",
       {false, [](const LessonGoal& g, const Traces& t) { return TimeSlicing(*t.front(), g.op); }}},
      {"repeated_batches",
       {true, [](const LessonGoal&, const Traces& t) { return RepeatedBatches(*t.front()); }}},
      {"shuffle_displacement",
       {false, [](const LessonGoal&, const Traces& t) { return ShuffleDisplacement(*t.front()); }}},
      {"out_of_order",
       {true, [](const LessonGoal&, const Traces& t) { return OutOfOrder(*t.front()); }}},
      {"worker_overlap",
       {true, [](const LessonGoal& g, const Traces& t) { return Workers(t, g.op, true); }}},
      {"worker_coverage",
       {true, [](const LessonGoal& g, const Traces& t) { return Workers(t, g.op, false); }}},
  };
  return kMetrics;
}

}  // namespace

std::string UnknownMetric(const std::string& metric) {
  if (Metrics().count(metric)) return "";
  std::string known;
  for (const auto& [name, m] : Metrics()) known += (known.empty() ? "" : ", ") + name;
  return "unknown metric '" + metric + "' (metrics: " + known + ")";
}

bool MetricIsShare(const std::string& metric) {
  const auto it = Metrics().find(metric);
  return it != Metrics().end() && it->second.share;
}

GoalResult EvaluateGoal(const LessonGoal& goal, const Traces& traces) {
  GoalResult r;
  r.goal = goal;
  if (traces.empty()) {
    r.note = "nothing ran";
    return r;
  }
  const auto measure = Metrics().find(goal.metric);
  if (measure == Metrics().end()) {
    r.note = UnknownMetric(goal.metric);
    return r;
  }
  const Figure f = measure->second.measure(goal, traces);
  r.measured = f.missing.empty();
  r.note = f.missing;
  r.value = f.value;
  r.met = r.measured && f.value >= goal.at_least.value_or(f.value) &&
          f.value <= goal.at_most.value_or(f.value);
  return r;
}

}  // namespace pipescope::session
