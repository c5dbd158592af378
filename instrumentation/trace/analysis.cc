#include "instrumentation/trace/analysis.h"

#include <algorithm>
#include <cmath>

#include "instrumentation/trace/cpu_share.h"
#include "instrumentation/trace/epoch_window.h"
#include "instrumentation/trace/gap_attribution.h"
#include "instrumentation/trace/intervals.h"
#include "instrumentation/trace/lineage.h"
#include "instrumentation/trace/op_activity.h"
#include "instrumentation/trace/rate_interval.h"
#include "instrumentation/trace/sampled_series.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::trace {
namespace {

int64_t CountStartingIn(const Track& t, int64_t t0, int64_t t1) {
  return static_cast<int64_t>(t.FirstStartingAtOrAfter(t1) - t.FirstStartingAtOrAfter(t0));
}

// Calls that start in [t0, t1): a run's count with it.
int64_t CallsStartingIn(const Track& t, int64_t t0, int64_t t1) {
  const size_t first = t.FirstStartingAtOrAfter(t0);
  return t.CallsIn(first, t.FirstStartingAtOrAfter(t1, first));
}

int64_t ElementsOf(const Model& model, const record::StageDef& stage, int64_t t0, int64_t t1) {
  int64_t n = 0;
  for (const Track* t : model.TracksOf(EventKind::kCall, stage.id))
    n += CallsStartingIn(*t, t0, t1);
  return n;
}

// The mean rows of the batches `batch` took (ForEachBatchTaken: its input's calls nested
// where it took them; a copy has its original's), over the whole trace: a range that begins
// among a replicated dataset's copies, or holds a short run's last partial batch alone,
// would read a few batches' mean for every step's. 0 when no batch shows its rows.
double RowsPerBatch(const Model& model, const record::StageDef& batch) {
  int64_t batches = 0, rows = 0, previous = 0;
  ForEachBatchTaken(model, batch, INT64_MIN, INT64_MAX,
                    [&](uint64_t, const Track& in, size_t first, size_t last, bool copy) {
                      int64_t n = 0;
                      for (size_t j = first; j < last; ++j) {
                        if (in.element(j) != 0) n += in.calls(j);  // not a call that ended
                      }
                      if (copy) n = previous;
                      previous = n;
                      if (n > 0) {
                        rows += n;
                        ++batches;
                      }
                    });
  return batches > 0 ? static_cast<double>(rows) / static_cast<double>(batches) : 0.0;
}

// Time in [t0, t1) that a span of `waits` covers and no span of `steps` does. Both tracks
// hold spans that do not overlap one another (one consumer thread, one step at a time).
int64_t UncoveredWaitNs(const Track& waits, const Track& steps, int64_t t0, int64_t t1) {
  int64_t total = 0;
  size_t s = steps.FirstEndingAfter(t0);
  for (size_t i = waits.FirstEndingAfter(t0); i < waits.size() && waits.start(i) < t1; ++i) {
    const int64_t a = std::max(t0, waits.start(i)), b = std::min(t1, waits.end(i));
    if (b <= a) continue;
    int64_t covered = 0;
    while (s < steps.size() && steps.end(s) <= a) ++s;
    for (size_t k = s; k < steps.size() && steps.start(k) < b; ++k)
      covered += std::min(b, steps.end(k)) - std::max(a, steps.start(k));
    total += (b - a) - covered;
  }
  return total;
}

}  // namespace

StageFigures FiguresOf(const Model& model, const record::StageDef& stage, int64_t t0, int64_t t1) {
  StageFigures f;
  f.id = stage.id;
  f.name = stage.name;
  f.op = stage.kind;
  f.traits = stage.traits;
  f.depth = stage.depth;
  f.asynchronous = stage.asynchronous;
  const double len = static_cast<double>(std::max<int64_t>(1, t1 - t0));
  f.parallelism = AverageParallelism(model, stage, t0, t1);
  f.buffer_size = model.KnobAverage(stage.id, "buffer_size", t0, t1, stage.buffer_size);
  f.elements = ElementsOf(model, stage, t0, t1);
  f.elements_per_s = static_cast<double>(f.elements) / (len / 1e9);

  const OpActivity a = ActivityOf(model, stage, t0, t1);
  const double threads = stage.asynchronous   ? f.parallelism
                         : a.call_threads > 1 ? ConcurrentCallThreads(model, stage, t0, t1)
                                              : 1;
  // A synchronous op called on several threads at once (an interleave's per-file reads) runs
  // that many calls in parallel, though it has no knob of its own.
  if (!stage.asynchronous) f.parallelism = std::max(1.0, threads);
  const double capacity = len * std::max(1.0, threads);
  auto share = [&](int64_t ns) { return std::clamp(static_cast<double>(ns) / capacity, 0.0, 1.0); };
  f.busy_fraction = share(a.own_ns);
  f.waiting_input_fraction = share(a.input_ns);
  f.blocked_output_fraction = share(a.blocked_ns);
  f.idle_fraction = share(a.idle_ns);
  f.startups = a.startups;
  f.startup_ns = a.startup_ns;
  f.startup_covered_ns = a.startup_covered_ns;
  if (a.own_ns > 0) {
    f.lock_wait_fraction =
        std::clamp(static_cast<double>(a.lock_wait_ns) / static_cast<double>(a.own_ns), 0.0, 1.0);
  }
  f.self_ns_per_element =
      f.elements > 0 ? static_cast<double>(a.own_ns) / static_cast<double>(f.elements) : 0;
  f.receive_fraction = std::clamp(static_cast<double>(a.receive_ns) / len, 0.0, 1.0);
  f.receive_ns_per_element =
      f.elements > 0 ? static_cast<double>(a.receive_ns) / static_cast<double>(f.elements) : 0;

  if (const Track* levels = model.FindTrack({EventKind::kBufferLevel, stage.id, 0})) {
    if (const std::optional<double> mean = MeanLevel(*levels, t0, t1)) {
      f.mean_buffer_level = *mean;
      if (f.buffer_size > 0) f.buffer_fill = std::min(1.0, f.mean_buffer_level / f.buffer_size);
    }
  }
  return f;
}

int64_t FirstStepNs(const Model& model) {
  int64_t first = -1;
  const auto& step_tracks = model.TracksOf(EventKind::kStep, record::kDeviceOp);
  for (const Track* t : step_tracks) {
    if (t->size() > 0 && (first < 0 || t->start(0) < first)) first = t->start(0);
  }
  if (!step_tracks.empty()) return first;
  for (const Track* t : model.TracksOf(EventKind::kInputWait, record::kConsumerOp)) {
    for (size_t i = 0; i < t->size(); ++i) {
      if (t->element(i) == 0) continue;
      if (first < 0 || t->end(i) < first) first = t->end(i);
      break;
    }
  }
  return first;
}

RangeAnalysis AnalyzeSteady(const Model& model) {
  const int64_t first = FirstStepNs(model);
  if (first <= 0 || first >= model.duration_ns()) return Analyze(model);
  RangeAnalysis r = AnalyzeWholeEpochs(model, EpochEndsNs(model), first, model.duration_ns());
  r.startup_ns = first;
  r.verdict =
      MakeVerdict(r, model.run_info().machine.cpu_budget,
                  model.run_info().machine.cpu_budget_is_this_machines);  // it speaks of a long one
  return r;
}

RangeAnalysis AnalyzeWholeEpochs(const Model& model, const std::vector<int64_t>& epoch_ends,
                                 int64_t t0, int64_t t1) {
  const EpochWindow window = WholeEpochsIn(epoch_ends, t0, t1);
  RangeAnalysis r = Analyze(model, window.t0, window.t1);
  const Track* steps = model.FindTrack({EventKind::kStep, record::kDeviceOp, 0});
  if (window.epochs == 0 || steps == nullptr) return r;
  r.whole_epochs = window.epochs;
  // One epoch says nothing of how epochs vary: its steps' own interval stands.
  if (window.epochs < 2) return r;
  const auto first = std::lower_bound(epoch_ends.begin(), epoch_ends.end(), window.t0);
  const std::vector<int64_t> edges(first, first + window.epochs + 1);
  std::vector<int64_t> per_epoch;
  for (size_t i = 0; i + 1 < edges.size(); ++i)
    per_epoch.push_back(CountStartingIn(*steps, edges[i], edges[i + 1]));
  r.steps_per_s_half_width = PeriodsInterval(edges, per_epoch, r.steps_per_s).half_width;
  return r;
}

RangeAnalysis AnalyzeSteadyPart(const Model& model, int64_t from) {
  const int64_t end = model.duration_ns();
  const int64_t quarter = from + (end - from) / 4;
  const std::vector<int64_t> ends = EpochEndsNs(model);
  const bool from_start =
      WholeEpochsIn(ends, quarter, end).epochs == 0 && WholeEpochsIn(ends, from, end).epochs > 0;
  return AnalyzeWholeEpochs(model, ends, from_start ? from : quarter, end);
}

int64_t GpuBusyNs(const Model& model, int64_t t0, int64_t t1) {
  // Every stream's (and nesting row's) work: busy is their union, the same union the
  // device gaps are the complement of.
  const std::vector<const Track*> tracks = DeviceWorkTracks(model);
  if (tracks.empty()) return -1;
  return Total(Union(tracks, t0, t1));
}

RangeAnalysis Analyze(const Model& model, int64_t t0, int64_t t1) {
  RangeAnalysis r;
  if (t1 <= t0) {
    t0 = 0;
    t1 = model.duration_ns();
  }
  t0 = std::clamp<int64_t>(t0, 0, model.duration_ns());
  t1 = std::clamp<int64_t>(t1, t0, model.duration_ns());
  r.t0 = t0;
  r.t1 = t1;
  r.dropped_events = model.dropped_events();
  r.simulated = model.run_info().simulated;
  const int64_t len = std::max<int64_t>(1, t1 - t0);
  r.duration_s = static_cast<double>(t1 - t0) / 1e9;

  // The input wait is the part of the consumer's wait with no step on the device. A
  // synchronous step never overlaps the wait, so this is the whole wait; a GPU step queued
  // asynchronously runs while the host thread already waits for the next batch, and only
  // the rest of that wait starves the device.
  const Track* steps = model.FindTrack({EventKind::kStep, record::kDeviceOp, 0});
  // Steps are counted by where they start, in [t0, t1); a range that reaches the trace's end
  // takes in a step that starts at its very end too, a step of no time after the last wait.
  // (Not the consumer's waits: its last one, which found the end of the data, can start
  // there.)
  const int64_t count_until = t1 >= model.duration_ns() ? t1 + 1 : t1;
  int64_t wait_ns = 0, consumer_calls = 0;
  // For how well the rate is known: the consumer's steps (merged from its tracks), or the
  // range of the device's step track.
  std::vector<int64_t> step_starts;
  size_t first_step = 0, end_step = 0;
  for (const Track* t : ConsumerWaitTracks(model)) {
    wait_ns += steps ? UncoveredWaitNs(*t, *steps, t0, t1) : t->SumRange(t0, t1).covered_ns;
    if (t->key().kind != EventKind::kInputWait) continue;  // waits for the lock bring nothing
    // A wait that found the end of the data (or an error) carries no element: no step.
    const size_t first = t->FirstStartingAtOrAfter(t0);
    const size_t last = t->FirstStartingAtOrAfter(t1, first);
    for (size_t i = first; i < last; ++i) {
      if (t->element(i) == 0) continue;
      ++consumer_calls;
      if (!steps) step_starts.push_back(t->start(i));
    }
  }
  r.input_wait_fraction =
      std::clamp(static_cast<double>(wait_ns) / static_cast<double>(len), 0.0, 1.0);
  if (steps) {
    r.steps = CountStartingIn(*steps, t0, count_until);
    first_step = steps->FirstStartingAtOrAfter(t0);
    end_step = steps->FirstStartingAtOrAfter(count_until, first_step);
    r.device_busy_fraction = std::clamp(
        static_cast<double>(steps->SumRange(t0, t1).covered_ns) / static_cast<double>(len), 0.0,
        1.0);
    r.device_busy_source = "steps";
  } else {
    r.steps = consumer_calls;
  }
  // On a GPU the device's own records say when it was busy: the union of its kernels,
  // copies and sets (overlapping streams count once).
  if (const int64_t gpu_busy = GpuBusyNs(model, t0, t1); gpu_busy >= 0) {
    r.device_busy_fraction =
        std::clamp(static_cast<double>(gpu_busy) / static_cast<double>(len), 0.0, 1.0);
    r.device_busy_source = "cupti";
  }
  r.waits = WaitPatternOf(model, t0, t1);
  if (const Track* disk = model.FindTrack({EventKind::kStorageBusy, record::kNoOp, 0})) {
    r.storage_busy_fraction =
        std::clamp(AmountIn(*disk, t0, t1) / static_cast<double>(len), 0.0, 1.0);
  }
  r.steps_per_s = r.duration_s > 0 ? static_cast<double>(r.steps) / r.duration_s : 0;
  if (steps) {
    r.steps_per_s_half_width =
        StartsInterval(
            end_step - first_step, [&](size_t i) { return steps->start(first_step + i); },
            r.steps_per_s)
            .half_width;
  } else {
    std::sort(step_starts.begin(), step_starts.end());
    r.steps_per_s_half_width = StartsInterval(step_starts, r.steps_per_s).half_width;
  }

  const auto stages = model.StagesInOrder();
  for (const auto* s : stages) r.stages.push_back(FiguresOf(model, *s, t0, t1));

  // Rows: when the consumer gets batches, each step's batch's rows (the steps times the mean
  // rows of the batches the last top-level batch took), as the run loop counts the rows it
  // got when nothing is recorded; otherwise every step is one element. Counting the batch's
  // input calls in the range instead left out the first step's batch, made before the range
  // began: 1.9% fewer rows a second than the same run unrecorded (cpu_bound, 40 pairs of
  // 2 s). A trace without steps, or whose batch takes its rows on other threads, counts the
  // rows the batch took in the range.
  r.elements = r.steps;
  for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
    if ((*it)->depth == 0 && (*it)->Has(record::kTraitBatches) && (*it)->input >= 0) {
      if (const auto* in = model.Stage(static_cast<uint16_t>((*it)->input))) {
        const double per_batch = RowsPerBatch(model, **it);
        r.elements = r.steps > 0 && per_batch > 0
                         ? std::llround(static_cast<double>(r.steps) * per_batch)
                         : ElementsOf(model, *in, t0, t1);
      }
      break;
    }
  }
  r.elements_per_s = r.duration_s > 0 ? static_cast<double>(r.elements) / r.duration_s : 0;

  const std::map<uint16_t, OpCpu> cpu = CpuOfOps(model, t0, t1);
  for (auto& f : r.stages) {
    auto it = cpu.find(f.id);
    // Too little work to tell (a cheap op on a busy thread): left unknown.
    if (it == cpu.end() || it->second.work_ns < 0.01 * static_cast<double>(len)) continue;
    f.cpu_share = std::min(1.0, it->second.share());
    f.cpu_cores = it->second.cpu_ns / static_cast<double>(len);
    f.worker_threads = it->second.threads;
  }

  const auto caused = AttributeWaiting(model, t0, t1);
  int64_t total = 0;
  for (const auto& [op, ns] : caused) total += ns;
  for (auto& f : r.stages) {
    auto it = caused.find(f.id);
    if (it != caused.end() && total > 0) {
      f.caused_wait_share = static_cast<double>(it->second) / static_cast<double>(total);
    }
  }
  r.device_gaps = SummarizeDeviceGaps(model, t0, t1, &caused);
  if (const double cpu = ConsumerCpuNs(model, t0, t1); cpu >= 0 && t1 > t0) {
    r.consumer_cpu_share = cpu / static_cast<double>(t1 - t0);
  }
  r.verdict = MakeVerdict(r, model.run_info().machine.cpu_budget,
                          model.run_info().machine.cpu_budget_is_this_machines);
  return r;
}

}  // namespace pipescope::trace
