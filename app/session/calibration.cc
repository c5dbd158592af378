#include "app/session/calibration.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iomanip>
#include <map>
#include <sstream>

#include "app/session/simulated_fit.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/spec_loader.h"
#include "instrumentation/trace/op_activity.h"
#include "instrumentation/trace/sampled_series.h"

namespace pipescope::session {
namespace {

using record::EventKind;

constexpr double kMinSamples = 5;          // fewer: the op keeps the spec's defaults
constexpr double kTimeSlicedShare = 0.85;  // CPU under this share of the span: time-sliced

// Per-call figures, each standing for the calls it was measured over: a run of a source's
// cheap calls (folded by the recorder, FORMAT.md) is one figure, its mean, standing for all
// its calls, so a thousand-call run weighs as much as a thousand single calls. The mean and
// the spread are kept as the figures come (Welford's update, weighted); the median from the
// figures kept, which Fitter::Collect thins to at most kMedianFigures evenly spaced ones: an
// op of tens of millions of calls took hundreds of megabytes to calibrate.
constexpr size_t kMedianFigures = 1 << 18;
// One event in `stride`, picked by a hash of its index rather than every stride-th: a
// pipeline whose every 64th call is slow (a batch boundary) would alias with a fixed stride.
bool KeptForMedian(size_t i, size_t stride) {
  if (stride <= 1) return true;
  uint64_t h = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 31;
  return h % stride == 0;
}

struct Samples {
  struct Figure {
    double ns;
    double calls;
  };
  std::vector<Figure> figures;  // for the median
  double calls = 0;

  void Add(double per_call_ns, double n = 1, bool for_median = true) {
    calls += n;
    const double delta = per_call_ns - mean_;
    mean_ += delta * n / calls;
    m2_ += n * delta * (per_call_ns - mean_);
    if (for_median) figures.push_back({per_call_ns, n});
  }
  double mean() const { return calls > 0 ? mean_ : 0; }
  double cv() const {
    const double m = mean();
    if (calls < 2 || m <= 0) return 0;
    return std::sqrt(std::max(0.0, m2_) / (calls - 1)) / m;
  }
  double median() {
    std::sort(figures.begin(), figures.end(),
              [](const Figure& a, const Figure& b) { return a.ns < b.ns; });
    double kept = 0;
    for (const Figure& f : figures) kept += f.calls;
    double seen = 0;
    for (const Figure& f : figures) {
      seen += f.calls;
      if (seen >= kept / 2) return f.ns;
    }
    return 0;
  }

 private:
  double mean_ = 0;
  double m2_ = 0;  // the sum of squared differences from the mean, weighted
};

class Fitter {
 public:
  Fitter(const trace::Model& trace, int64_t t0, int64_t t1) : trace_(trace), t0_(t0), t1_(t1) {}

  // The events of a track that start in the window: [first, last).
  std::pair<size_t, size_t> Window(const trace::Track& t) const {
    const size_t first = t.FirstStartingAtOrAfter(t0_);
    return {first, t.FirstStartingAtOrAfter(t1_, first)};
  }
  // Durations (or, with `values`, the values) of an op's events of `kind` in the window, per
  // call: a run (folded cheap calls, recorded or simulated) gives its mean, for its calls.
  Samples Collect(EventKind kind, uint16_t op, bool values) const {
    Samples s;
    const std::vector<const trace::Track*> tracks = trace_.TracksOf(kind, op);
    size_t events = 0;
    for (const trace::Track* t : tracks) {
      const auto [first, last] = Window(*t);
      events += last - first;
    }
    const size_t stride = std::max<size_t>(1, (events + kMedianFigures - 1) / kMedianFigures);
    for (const trace::Track* t : tracks) {
      const auto [first, last] = Window(*t);
      for (size_t i = first; i < last; ++i) {
        const double total =
            values ? static_cast<double>(t->value(i)) : static_cast<double>(t->duration(i));
        s.Add(total / t->calls(i), t->calls(i), KeptForMedian(i, stride));
      }
    }
    return s;
  }
  // An op's work per call in the window without its threads' waits for the interpreter lock
  // inside it: how long the function itself took, whatever the other threads' Python.
  Samples CollectWithoutLockWaits(uint16_t op) const {
    Samples s;
    for (const trace::Track* t : trace_.TracksOf(EventKind::kWork, op)) {
      const trace::Track* waits = trace_.FindTrack({EventKind::kLockWait, op, t->key().thread});
      const auto [first, last] = Window(*t);
      const size_t stride =
          std::max<size_t>(1, (last - first + kMedianFigures - 1) / kMedianFigures);
      for (size_t i = first; i < last; ++i) {
        const int64_t waited = waits ? waits->SumRange(t->start(i), t->end(i)).covered_ns : 0;
        const double own = static_cast<double>(std::max<int64_t>(0, t->duration(i) - waited));
        s.Add(own / t->calls(i), t->calls(i), KeptForMedian(i, stride));
      }
    }
    return s;
  }
  // Calls of an op's events of `kind` in the window.
  size_t Count(EventKind kind, uint16_t op) const {
    size_t n = 0;
    for (const trace::Track* t : trace_.TracksOf(kind, op)) {
      const auto [first, last] = Window(*t);
      n += static_cast<size_t>(t->CallsIn(first, last));
    }
    return n;
  }
  // The sum of a track's values (CPU time, self time) in the window.
  double SumValues(const trace::Track& t) const {
    const auto [first, last] = Window(t);
    return t.SumValues(first, last);
  }
  // CPU time a thread's samples (kCpuTime) put in the window.
  double CpuIn(const trace::Track& samples) const { return trace::AmountIn(samples, t0_, t1_); }
  double SumDurations(const trace::Track& t) const {
    const auto [first, last] = Window(t);
    return static_cast<double>(t.SumDurations(first, last));
  }

  // The threads of an asynchronous op's workers, named after it ("decode/0").
  std::vector<uint32_t> WorkerThreads(const record::StageDef& stage) const {
    std::vector<uint32_t> out;
    for (const auto& [id, name] : trace_.threads()) {
      if (name.size() > stage.name.size() && name.starts_with(stage.name) &&
          name[stage.name.size()] == '/') {
        out.push_back(id);
      }
    }
    return out;
  }

  // Time an asynchronous op's workers spend in the window outside their spans (the function,
  // pulling input, waiting for room, parked): handing elements on, waking the taker. -1
  // where the op has no worker threads in the trace.
  double WorkerTimeOutsideSpans(const record::StageDef& stage) const {
    double window = 0, in_spans = 0;
    for (const uint32_t id : WorkerThreads(stage)) {
      window += static_cast<double>(t1_ - t0_);
      for (const EventKind kind :
           {EventKind::kWork, EventKind::kWaitInput, EventKind::kBlocked, EventKind::kIdle}) {
        if (const trace::Track* t = trace_.FindTrack({kind, stage.id, id})) {
          in_spans += static_cast<double>(t->SumRange(t0_, t1_).covered_ns);
        }
      }
    }
    if (window <= 0) return -1;
    return std::max(0.0, window - in_spans);
  }

  // CPU per element of an asynchronous op's function, from its workers' CPU time. A worker
  // also runs the synchronous ops it pulls input through, whose self times are wall time:
  // on a busy machine they include time descheduled, so subtracting them from the CPU time
  // would leave the function too little (nothing, on the fastest pipelines). The CPU is
  // split between the function and the pulls in proportion to their wall times instead.
  // -1 when not recorded.
  double WorkerCpuPerElement(const record::StageDef& stage, double elements) const {
    if (elements <= 0) return -1;
    double cpu = 0, upstream = 0, work = 0;
    bool any = false;
    for (const uint32_t id : WorkerThreads(stage)) {
      if (const trace::Track* t = trace_.FindTrack({EventKind::kCpuTime, record::kNoOp, id})) {
        any = any || !t->empty();
        cpu += CpuIn(*t);
      }
      for (const auto& track : trace_.tracks()) {
        const auto& k = track->key();
        if (k.thread != id) continue;
        if (k.kind == EventKind::kCall) upstream += SumValues(*track);
        if (k.kind == EventKind::kWork && k.op == stage.id) work += SumDurations(*track);
      }
    }
    if (!any) return -1;
    const double busy = work + upstream;
    return (busy > 0 ? cpu * work / busy : cpu) / elements;
  }

 private:
  const trace::Model& trace_;
  const int64_t t0_, t1_;
};

// Rows per element at each top-level op (batch sizes as the spec says), for the per-row
// share of a map's cost.
std::map<std::string, int64_t> RowsAt(const spec::PipelineSpec& spec) {
  std::map<std::string, int64_t> rows;
  int64_t r = 1;
  for (const auto& op : spec.ops()) {
    if (const int64_t batch_size = engine::BatchSizeOf(op); batch_size > 0) r = batch_size;
    if (const auto* kind = engine::DescribeOp(op);
        kind && kind->ratio == engine::OutputRatio::kRowsPerElement) {
      r = 1;
    }
    rows[op.name()] = r;
  }
  return rows;
}

// Scales a cost's CPU parts so that an element of `rows` rows costs `cpu_ns`, and sets its
// wait, both with the measured spread.
void Fit(sim::OpCost& c, int64_t rows, double cpu_ns, double wait_ns, double cv) {
  const double default_cpu = c.cpu.mean_ns + c.cpu_per_row.mean_ns * static_cast<double>(rows);
  if (default_cpu > 0) {
    const double f = cpu_ns / default_cpu;
    c.cpu.mean_ns *= f;
    c.cpu_per_row.mean_ns *= f;
  } else {
    c.cpu.mean_ns = cpu_ns;
  }
  c.cpu.cv = c.cpu_per_row.cv = cv;
  c.wait = sim::Dist{wait_ns, wait_ns > 0 ? cv : 0};
  // The measured wait per element holds the storage's requests too, averaged over records.
  c.request_wait = {};
  c.request_bytes = 0;
}

// The CPU a run spends outside its ops' work (hand-offs between threads, spinning before
// sleeping, the recorder's collector) shows as machine CPU the fitted costs do not explain;
// the simulator charges it per hand-off, so it is spread over the asynchronous ops' elements.
void FitHandoff(const trace::Model& trace, const Fitter& fit,
                const std::map<std::string, int64_t>& rows_at, sim::CostModel& model) {
  double total_cpu = 0;
  for (const auto& track : trace.tracks()) {
    if (track->key().kind == EventKind::kCpuTime) total_cpu += fit.CpuIn(*track);
  }
  double explained = 0, handoffs = 0;
  for (const record::StageDef* stage : trace.StagesInOrder()) {
    const double n = static_cast<double>(fit.Count(EventKind::kCall, stage->id));
    const sim::OpCost& c = model.Of(stage->name);
    const auto rows = rows_at.find(stage->name);
    const double rows_per_element = rows != rows_at.end() ? static_cast<double>(rows->second) : 1;
    explained += n * (c.cpu.mean_ns + c.cpu_per_row.mean_ns * rows_per_element);
    if (stage->asynchronous) handoffs += n;
  }
  if (total_cpu <= 0 || handoffs < kMinSamples) return;
  const double per_handoff = (total_cpu - explained) / handoffs;
  model.handoff_ns = static_cast<int64_t>(std::clamp(per_handoff, 500.0, 200'000.0));
  // The giver's part: its workers' time outside their spans, over the elements they gave.
  double outside = 0, given = 0;
  for (const record::StageDef* stage : trace.StagesInOrder()) {
    if (!stage->asynchronous) continue;
    const double time = fit.WorkerTimeOutsideSpans(*stage);
    if (time < 0) continue;
    outside += time;
    given += static_cast<double>(fit.Count(EventKind::kCall, stage->id));
  }
  if (given >= kMinSamples) {
    model.handoff_giver_ns = static_cast<int64_t>(
        std::clamp(outside / given, 0.0, static_cast<double>(model.handoff_ns)));
  }
}

// How late the training loop resumed after sleeping until the device was free. Replays the
// device queue as RunTraining and the simulated device run it (after queuing step i the
// loop sleeps, while max_in_flight steps are unfinished, until the oldest ends) and takes
// the time from that end to the loop's next request for input. False when the loop never
// slept on the device in the window (the pipeline was the slower side).
bool FitTimerWake(const trace::Model& trace, int64_t max_in_flight, int64_t t0, int64_t t1,
                  sim::CostModel& model) {
  const auto& step_tracks = trace.TracksOf(EventKind::kStep, record::kDeviceOp);
  const auto& wait_tracks = trace.TracksOf(EventKind::kInputWait, record::kConsumerOp);
  if (step_tracks.size() != 1 || wait_tracks.size() != 1) return false;
  const trace::Track& steps = *step_tracks[0];
  const trace::Track& waits = *wait_tracks[0];
  // Longer than this, the loop was paused or descheduled for a reason a wake-up is not.
  constexpr int64_t kMaxWakeNs = 20'000'000;
  Samples wake;
  std::deque<int64_t> queued;  // end times of the unfinished steps
  const size_t n = std::min(steps.size(), waits.size());
  for (size_t i = 0; i + 1 < n; ++i) {
    const int64_t submitted = waits.end(i);
    queued.push_back(steps.end(i));
    while (!queued.empty() && queued.front() <= submitted) queued.pop_front();
    if (static_cast<int64_t>(queued.size()) < max_in_flight) continue;
    const int64_t slept_until = queued.front();
    queued.pop_front();
    const int64_t late = waits.start(i + 1) - slept_until;
    if (slept_until >= t0 && slept_until < t1 && late >= 0 && late < kMaxWakeNs) {
      wake.Add(static_cast<double>(late));
    }
  }
  if (wake.calls < kMinSamples) return false;
  model.timer_wake = sim::Dist{wake.mean(), wake.cv()};
  return true;
}

// A worker process's start (spawn or fork and the imports), from the start-up spans of each
// op whose workers are processes, over the whole run: they come at each epoch's start,
// before the steady part.
void FitWorkerStartup(const trace::Model& trace, sim::CostModel& model,
                      std::vector<std::string>& notes) {
  for (const record::StageDef* stage : trace.StagesInOrder()) {
    if (!stage->Has(record::kTraitWorkerProcesses) && !stage->Has(record::kTraitEnqueuerWorkers))
      continue;
    const trace::OpActivity a = trace::ActivityOf(trace, *stage, 0, trace.duration_ns());
    if (a.startups <= 0) continue;
    auto it = model.ops.find(stage->name);
    if (it == model.ops.end()) continue;
    it->second.worker_startup_ns = a.startup_ns / a.startups;
    std::ostringstream note;
    note << std::fixed << std::setprecision(1) << stage->name << ": a worker's start-up "
         << static_cast<double>(it->second.worker_startup_ns) / 1e6 << " ms, the mean of "
         << a.startups << " starts";
    notes.push_back(note.str());
  }
}

}  // namespace

engine::Result<Calibration> Calibrate(const trace::Model& trace, const std::string& origin) {
  const trace::RunInfo& info = trace.run_info();
  if (info.spec_text.empty()) {
    return engine::InvalidArgument(origin +
                                   ": the trace has no pipeline spec in its header (an imported "
                                   "profiler trace?); calibrate needs a Pipescope recording");
  }
  Calibration out;
  ASSIGN_OR_RETURN(out.spec, engine::ParseSpecText(info.spec_text, origin + " (header)"));
  const int cores = info.machine.cpu_budget > 0 ? info.machine.cpu_budget : info.machine.cpu_cores;
  ASSIGN_OR_RETURN(out.model, sim::DefaultCostModel(out.spec, cores > 0 ? cores : 2));
  out.model.origin = origin;
  if (info.simulated) out.notes.push_back("the trace is itself simulated: fitting the fit");

  const int64_t t1 = trace.duration_ns();
  const int64_t t0 = t1 / 4;
  Fitter fit(trace, t0, t1);
  const auto rows_at = RowsAt(out.spec);

  std::vector<std::string> from_spans;  // compute-only maps fitted from their spans
  for (const record::StageDef* stage : trace.StagesInOrder()) {
    auto it = out.model.ops.find(stage->name);
    if (it == out.model.ops.end()) continue;
    sim::OpCost& c = it->second;
    const int64_t rows = rows_at.count(stage->name) ? rows_at.at(stage->name) : 1;
    const double default_total =
        c.cpu.mean_ns + c.cpu_per_row.mean_ns * static_cast<double>(rows) + c.wait.mean_ns;
    const double wait_share = default_total > 0 ? c.wait.mean_ns / default_total : 0;

    // An op whose output per input the data decides (filter's predicate): measured.
    if (const auto* kind = engine::DescribeOpKind(stage->kind);
        kind && kind->ratio == engine::OutputRatio::kAtMostOne) {
      const double out_n = static_cast<double>(fit.Count(EventKind::kCall, stage->id));
      const double in_n = stage->input >= 0
                              ? static_cast<double>(fit.Count(EventKind::kCall,
                                                              static_cast<uint16_t>(stage->input)))
                              : 0;
      if (in_n >= kMinSamples) c.keep_fraction = std::clamp(out_n / in_n, 0.0, 1.0);
    }
    // Threads that only hand elements on (prefetch's, interleave's readers): no work to fit.
    if (stage->asynchronous && !stage->Has(record::kTraitParallelFunction)) continue;

    Samples s = stage->asynchronous ? fit.Collect(EventKind::kWork, stage->id, false)
                                    : fit.Collect(EventKind::kCall, stage->id, true);
    if (s.calls < kMinSamples) {
      out.notes.push_back(stage->name + ": " + std::to_string(std::llround(s.calls)) +
                          " elements in the steady part; kept the spec's costs");
      continue;
    }
    double mean = s.mean();
    double cv = s.cv();
    if (stage->asynchronous && stage->Has(record::kTraitHoldsInterpreterLock)) {
      // Its threads' waits for the lock vary with the other threads' Python, not with the
      // function: the spread is the function's own (a fixed 3 ms of Python at 8 threads
      // read 0.86 with them).
      if (const Samples own = fit.CollectWithoutLockWaits(stage->id); own.calls >= kMinSamples) {
        cv = own.cv();
      }
    }
    if (c.open_wait.mean_ns > 0) {
      // A file source: its first read pays the open; the typical read is the median.
      const double per_record = s.median();
      const double files =
          std::max<double>(1, static_cast<double>(fit.Count(EventKind::kCallEnd, stage->id)));
      const double excess = (mean - per_record) * s.calls;
      c.open_wait.mean_ns = std::max(0.0, excess / files);
      mean = per_record;
    }
    double cpu = mean * (1 - wait_share);
    if (stage->asynchronous) {
      const double measured = fit.WorkerCpuPerElement(*stage, s.calls);
      // Spans much longer than the CPU they used were time-sliced (more runnable threads
      // than cores): the simulator adds that back itself, so the fit keeps the CPU. A few
      // percent less CPU than span is the machine's own noise (steal time, clock changes):
      // the span is the better figure then.
      if (measured >= 0 && measured < kTimeSlicedShare * mean) {
        cpu = measured;
      } else if (wait_share == 0) {
        from_spans.push_back(stage->name);
      }
      if (wait_share == 0) mean = cpu;  // a function that only computes does not wait
    }
    Fit(c, rows, cpu, std::max(0.0, mean - cpu), cv);
  }

  FitHandoff(trace, fit, rows_at, out.model);
  if (!FitTimerWake(trace, std::max<int64_t>(1, out.spec.train_step().max_in_flight()), t0, t1,
                    out.model)) {
    out.notes.push_back(
        "timer wake-up: the training loop never waited for the device; kept the default");
  }

  Samples steps = fit.Collect(EventKind::kStep, record::kDeviceOp, false);
  if (steps.calls >= kMinSamples) {
    out.model.step = sim::Dist{steps.mean(), steps.cv()};
  } else {
    out.notes.push_back("device step: too few steps in the steady part; kept the spec's step time");
  }
  MatchSimulatedSpans(trace, out.spec, from_spans, out.model, out.notes);
  FitInterpreterLock(trace, out.spec, out.model, out.notes);
  FitWorkerStartup(trace, out.model, out.notes);
  FitStartup(trace, out.spec, out.model, out.notes);
  return out;
}

}  // namespace pipescope::session
