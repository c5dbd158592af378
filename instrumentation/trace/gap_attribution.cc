#include "instrumentation/trace/gap_attribution.h"

#include <algorithm>
#include <cstdio>

#include "instrumentation/trace/intervals.h"
#include "instrumentation/trace/op_activity.h"

namespace pipescope::trace {
namespace {

std::string Percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * std::clamp(f, 0.0, 1.0));
  return buf;
}

GapCause Blame(const Model& model, const record::StageDef& stage, const OpActivity& a,
               int64_t start, int64_t end) {
  const double len = static_cast<double>(std::max<int64_t>(1, end - start));
  GapCause cause;
  cause.op = stage.id;
  if (a.startup_ns > a.own_ns) {
    cause.reason = "its workers starting fill " +
                   Percent(static_cast<double>(a.startup_ns) /
                           (len * std::max(1.0, AverageParallelism(model, stage, start, end)))) +
                   " of the wait";
  } else if (stage.asynchronous) {
    const double p = AverageParallelism(model, stage, start, end);
    char buf[96];
    std::snprintf(buf, sizeof buf, " of %.0f worker%s", p, p > 1.5 ? "s" : "");
    cause.reason = "busy " + Percent(static_cast<double>(a.own_ns) / (len * p)) + buf;
  } else {
    cause.reason =
        "its own work fills " + Percent(static_cast<double>(a.own_ns) / len) + " of the wait";
  }
  return cause;
}

// The op before `stage` at its depth: what an interleave takes its input elements from (its
// recorded input is its sub-pipeline's last op); null for the first op of its level.
const record::StageDef* PreviousAtDepth(const Model& model, const record::StageDef& stage) {
  const record::StageDef* previous = nullptr;
  for (const record::StageDef* s : model.StagesInOrder()) {
    if (s == &stage) return previous;
    if (s->depth < stage.depth) previous = nullptr;
    if (s->depth == stage.depth) previous = s;
  }
  return nullptr;
}

// The input a stage waited on longest in the window: its input, or for an op with two
// whichever took more of the window. A zip pulls its input and its second pipeline's last
// op; an interleave its per-element datasets' last op and, as it opens each, its input
// elements' op, whose work (an interleave function's Python, read as a map before it) keeps
// the interleave waiting as the datasets' own ops do.
const record::StageDef* SlowerInput(const Model& model, const record::StageDef& stage,
                                    int64_t start, int64_t end) {
  const record::StageDef* input =
      stage.input >= 0 ? model.Stage(static_cast<uint16_t>(stage.input)) : nullptr;
  const std::vector<const record::StageDef*> sub = model.SubPipelineOf(stage);
  if (sub.empty()) return input;
  const record::StageDef* second =
      stage.Has(record::kTraitZips) ? sub.back() : PreviousAtDepth(model, stage);
  if (!second || !input) return input ? input : second;
  const OpActivity a = ActivityOf(model, *input, start, end);
  const OpActivity b = ActivityOf(model, *second, start, end);
  return b.own_ns + b.input_ns > a.own_ns + a.input_ns ? second : input;
}

}  // namespace

GapCause AttributeGap(const Model& model, int64_t start, int64_t end) {
  const record::StageDef* stage = model.LastStage();
  if (!stage) return {};
  // Bounded walk: a malformed trace could describe a cycle of inputs.
  for (int hop = 0; hop < 256; ++hop) {
    const OpActivity a = ActivityOf(model, *stage, start, end);
    const record::StageDef* input = SlowerInput(model, *stage, start, end);
    // Workers starting (a DataLoader's each epoch) are the op's own cause of the wait.
    const int64_t own = a.own_ns + a.startup_ns;
    if (!input || (own >= a.input_ns && own > 0)) return Blame(model, *stage, a, start, end);
    stage = input;
  }
  return Blame(model, *stage, ActivityOf(model, *stage, start, end), start, end);
}

std::map<int, int64_t> AttributeWaiting(const Model& model, int64_t t0, int64_t t1,
                                        int64_t window_ns) {
  std::map<int, int64_t> caused;
  int64_t pool_start = 0, pool_end = 0, pool_ns = 0;
  auto flush = [&] {
    if (pool_ns > 0) caused[AttributeGap(model, pool_start, pool_end).op] += pool_ns;
    pool_ns = 0;
  };
  for (const Track* track : ConsumerWaitTracks(model)) {
    const size_t j = track->FirstStartingAtOrAfter(t1);
    for (size_t k = track->FirstEndingAfter(t0); k < j; ++k) {
      const int64_t s = std::max(track->start(k), t0);
      const int64_t e = std::min(track->end(k), t1);
      if (e <= s) continue;
      if (e - s >= window_ns) {
        flush();
        caused[AttributeGap(model, s, e).op] += e - s;
        continue;
      }
      if (pool_ns == 0) pool_start = s;
      pool_end = e;
      pool_ns += e - s;
      if (pool_end - pool_start >= window_ns) flush();
    }
    flush();
  }
  return caused;
}

}  // namespace pipescope::trace
