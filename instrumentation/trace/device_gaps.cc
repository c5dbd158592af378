#include "instrumentation/trace/device_gaps.h"

#include <algorithm>
#include <optional>

#include "instrumentation/trace/gap_attribution.h"

namespace pipescope::trace {
namespace {

using record::EventKind;

bool Imported(const Model& model) { return !model.run_info().imported_from.empty(); }

std::vector<Interval> DeviceWork(const Model& model, int64_t t0, int64_t t1) {
  return Union(DeviceWorkTracks(model), t0, t1);
}

std::vector<Interval> Steps(const Model& model, int64_t t0, int64_t t1) {
  return Union(TracksOfKinds(model, {EventKind::kStep}, record::kDeviceOp), t0, t1);
}

std::vector<Interval> InputWaits(const Model& model, int64_t t0, int64_t t1) {
  return Union(ConsumerWaitTracks(model), t0, t1);
}

bool MostlyWaiting(const Model& model, int64_t start, int64_t end) {
  return 2 * Overlap({{start, end}}, InputWaits(model, start, end)) >= end - start;
}

// The span of `track` that holds time `t`, if any.
std::optional<size_t> SpanAt(const Track& track, int64_t t) {
  const size_t i = track.FirstEndingAfter(t);
  if (i < track.size() && track.start(i) <= t) return i;
  return std::nullopt;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// What the host of an imported trace was doing in the middle of a gap.
std::string ImportedCause(const Model& model, int64_t start, int64_t end) {
  const int64_t mid = start + (end - start) / 2;
  if (MostlyWaiting(model, start, end)) {
    for (const Track* t : model.TracksOf(EventKind::kInputWait, record::kConsumerOp)) {
      if (auto i = SpanAt(*t, mid)) return "input: " + std::string(model.SpanName(*t, *i));
    }
    return "input";
  }
  // Host work inside the step: spans around the whole step (the profiler's own annotation,
  // the training loop) say nothing about this gap.
  Interval step{start, end};
  for (const Track* t : model.TracksOf(EventKind::kStep, record::kDeviceOp)) {
    if (auto i = SpanAt(*t, mid)) step = {t->start(*i), t->end(*i)};
  }
  std::string runtime, outermost, synchronising;
  int outermost_depth = 1 << 30;
  for (const auto& track : model.tracks()) {
    if (track->key().kind != EventKind::kCall) continue;
    const auto i = SpanAt(*track, mid);
    if (!i) continue;
    if (track->start(*i) < step.first || track->end(*i) > step.second) continue;
    const std::string_view name = model.SpanName(*track, *i);
    const SpanLabel& label = model.labels()[track->label(*i)];
    if (name.find("ynchronize") != std::string_view::npos) {
      synchronising = name;
    } else if (label.category == "cuda_runtime" || label.category == "Runtime" ||
               label.category == "cuda_driver" || StartsWith(name, "cuda") ||
               StartsWith(name, "hip")) {
      runtime = name;
    } else if (!StartsWith(name, "ProfilerStep#") && label.category != "python_function" &&
               track->key().depth < outermost_depth) {
      outermost = name;
      outermost_depth = track->key().depth;
    }
  }
  if (!synchronising.empty()) return "synchronisation (" + synchronising + ")";
  if (!outermost.empty()) return "the host was running " + outermost;
  if (!runtime.empty()) return "the host was launching work (" + runtime + ")";
  return "the host was launching work";
}

// What says when the device of one of Pipescope's own traces was busy in [t0, t1): its work
// (kernels, copies, sets), or on a simulated device its steps, even steps that take no time
// (the input timed alone, `for r in dataset: pass`: the device idle throughout); none when
// neither has a span there.
std::vector<const Track*> OwnBusyTracks(const Model& model, int64_t t0, int64_t t1) {
  Interval first;
  std::vector<const Track*> busy = DeviceWorkTracks(model);
  if (UnionCursor(busy, t0, t1).Next(first)) return busy;
  busy = TracksOfKinds(model, {EventKind::kStep}, record::kDeviceOp);
  for (const Track* steps : busy) {
    const size_t i = steps->FirstEndingAfter(t0);
    if (i < steps->size() && steps->start(i) < t1) return busy;
  }
  return {};
}

// The gaps, or nullopt when nothing in [t0, t1) says when the device was busy.
std::optional<std::vector<Interval>> MeasuredGaps(const Model& model, int64_t t0, int64_t t1) {
  if (t1 <= t0) return std::nullopt;
  if (Imported(model)) {
    const std::vector<Interval> busy = DeviceWork(model, t0, t1);
    if (busy.empty()) return std::nullopt;  // no device activity: nothing says when it idled
    return Subtract(Steps(model, t0, t1), busy);
  }
  const std::vector<const Track*> busy = OwnBusyTracks(model, t0, t1);
  if (busy.empty()) return std::nullopt;
  std::vector<Interval> gaps;
  GapCursor cursor(busy, t0, t1);
  for (Interval gap; cursor.Next(gap);) gaps.push_back(gap);
  return gaps;
}

}  // namespace

std::vector<Interval> DeviceGaps(const Model& model, int64_t t0, int64_t t1) {
  return MeasuredGaps(model, t0, t1).value_or(std::vector<Interval>{});
}

std::optional<Interval> DeviceGapAt(const Model& model, int64_t t) {
  if (t < 0 || t >= model.duration_ns()) return std::nullopt;
  std::vector<const Track*> busy = DeviceWorkTracks(model);
  const std::vector<const Track*> steps =
      TracksOfKinds(model, {EventKind::kStep}, record::kDeviceOp);
  Interval gap{0, model.duration_ns()};
  if (Imported(model)) {
    if (busy.empty()) return std::nullopt;
    std::optional<Interval> step;
    for (const Track* s : steps) {
      if (auto i = SpanAt(*s, t)) step = Interval{s->start(*i), s->end(*i)};
    }
    if (!step) return std::nullopt;
    gap = *step;
  } else if (busy.empty()) {
    busy = steps;
  }
  if (busy.empty()) return std::nullopt;
  for (const Track* track : busy) {
    const size_t i = track->FirstEndingAfter(t);
    if (i < track->size() && track->start(i) <= t) return std::nullopt;  // busy at t
    if (i < track->size()) gap.second = std::min(gap.second, track->start(i));
    if (i > 0) gap.first = std::max(gap.first, track->end(i - 1));
  }
  return gap;
}

std::vector<Interval> WaitsWhileDeviceIdle(const Model& model) {
  const int64_t end = model.duration_ns();
  std::vector<Interval> waits = Union(ConsumerWaitTracks(model), 0, end);
  const std::vector<const Track*> device_work = DeviceWorkTracks(model);
  if (device_work.empty()) return waits;
  return Subtract(waits, Union(device_work, 0, end));
}

std::string DeviceGapCause(const Model& model, int64_t start, int64_t end) {
  if (Imported(model)) return ImportedCause(model, start, end);
  if (!MostlyWaiting(model, start, end)) return kHostBetweenSteps;
  const GapCause cause = AttributeGap(model, start, end);
  const record::StageDef* op =
      cause.op >= 0 ? model.Stage(static_cast<uint16_t>(cause.op)) : nullptr;
  return op ? "input: " + op->name : "input";
}

DeviceGapSummary SummarizeDeviceGaps(const Model& model, int64_t t0, int64_t t1,
                                     const std::map<int, int64_t>* precomputed) {
  DeviceGapSummary s;
  const auto count = [&s](const Interval& gap) {
    ++s.count;
    s.total_ns += gap.second - gap.first;
    s.longest_ns = std::max(s.longest_ns, gap.second - gap.first);
  };
  if (Imported(model)) {
    const std::optional<std::vector<Interval>> measured = MeasuredGaps(model, t0, t1);
    s.measured = measured.has_value();
    for (const auto& gap : measured.value_or(std::vector<Interval>{})) {
      count(gap);
      s.by_cause_ns[ImportedCause(model, gap.first, gap.second)] += gap.second - gap.first;
    }
    return s;
  }
  // Pipescope's traces have a gap at every step boundary (tens of millions in a long
  // recording): they are walked once, with the consumer's waits beside them, never stored.
  const std::vector<const Track*> busy =
      t1 > t0 ? OwnBusyTracks(model, t0, t1) : std::vector<const Track*>{};
  s.measured = !busy.empty();  // as MeasuredGaps decides, without storing the gaps
  if (!s.measured) return s;
  GapCursor gaps(busy, t0, t1);
  UnionCursor waits(ConsumerWaitTracks(model), t0, t1);
  Interval wait;
  bool have_wait = waits.Next(wait);
  int64_t waited = 0;
  for (Interval gap; gaps.Next(gap);) {
    count(gap);
    while (have_wait && wait.first < gap.second) {
      waited +=
          std::max<int64_t>(0, std::min(wait.second, gap.second) - std::max(wait.first, gap.first));
      if (wait.second > gap.second) break;  // it reaches into the next gap
      have_wait = waits.Next(wait);
    }
  }
  // The waiting in the gaps is shared out by gap attribution over the whole range (pooled,
  // so the cost follows the range's length), and the rest is the host's.
  const std::map<int, int64_t> caused =
      precomputed ? *precomputed : AttributeWaiting(model, t0, t1);
  int64_t caused_total = 0;
  for (const auto& [op, ns] : caused) caused_total += ns;
  int64_t shared = 0;
  for (const auto& [op, ns] : caused) {
    const record::StageDef* stage = op >= 0 ? model.Stage(static_cast<uint16_t>(op)) : nullptr;
    if (!stage || caused_total == 0) continue;
    const auto part = static_cast<int64_t>(static_cast<double>(waited) * static_cast<double>(ns) /
                                           static_cast<double>(caused_total));
    if (part <= 0) continue;
    s.by_cause_ns["input: " + stage->name] += part;
    shared += part;
  }
  if (shared == 0 && waited > 0) {
    s.by_cause_ns["input"] = waited;
    shared = waited;
  }
  if (s.total_ns > shared) s.by_cause_ns[kHostBetweenSteps] += s.total_ns - shared;
  return s;
}

}  // namespace pipescope::trace
