#include "instrumentation/trace/import/framework_report.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/import/loader_job.h"
#include "instrumentation/trace/intervals.h"
#include "instrumentation/trace/verdict.h"

namespace pipescope::trace {
namespace {

using record::EventKind;

constexpr double kInputBound = 0.10;        // waiting this share of step time is worth fixing
constexpr double kDeviceBound = 0.90;       // a device busy this share of step time is the limit
constexpr double kDeviceMostlyIdle = 0.60;  // one idle more than this is waiting on the host

std::string Percent(double f) { return FormatPercent(f); }

std::string Millis(double ns) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%.1f ms", ns / 1e6);
  return buf;
}

// A tf.data op's own time in [t0, t1): its calls' less the calls of its input nested in them
// on their thread, and, for an asynchronous op (Prefetch, ParallelMapV2, ...), less the time
// its input's calls on threads of their own cover its calls. Such an op is called on its
// consumer's thread and waits there for what its own threads make: the part of a call that
// its input does not cover is its own (the function it runs), as tf.data's bottleneck
// analysis counts it; a prefetch that waits while its input works is idle, not busy.
int64_t IteratorOwnNs(const Model& model, const record::StageDef& stage, int64_t t0, int64_t t1) {
  const auto& calls = model.TracksOf(EventKind::kCall, stage.id);
  std::vector<const Track*> input_apart;  // the input's calls on threads this op is not on
  if (stage.asynchronous && stage.input >= 0) {
    for (const Track* in : model.TracksOf(EventKind::kCall, static_cast<uint16_t>(stage.input))) {
      const bool shared = std::any_of(calls.begin(), calls.end(), [&](const Track* own) {
        return own->key().thread == in->key().thread;
      });
      if (!shared) input_apart.push_back(in);
    }
  }
  const auto covered = Union(input_apart, t0, t1);
  int64_t own = 0;
  for (const Track* track : calls) {
    const auto self = static_cast<int64_t>(track->SumRange(t0, t1).value);
    own += std::max<int64_t>(0, self - Overlap(Union({track}, t0, t1), covered));
  }
  return own;
}

// What the device's share of step time says where the input is not the wait: busy nearly
// throughout, the step itself is the limit; idle for most of it, the host's own work between
// kernels is, which the device gaps name.
std::string DeviceShare(const FrameworkSummary& s) {
  if (!s.has_device_activity) return "";
  if (s.device_busy_fraction >= kDeviceBound) {
    return " The device is the limit: a faster step (or a larger batch per step) is what would "
           "help.";
  }
  if (s.device_busy_fraction < kDeviceMostlyIdle) {
    return " The device idles " + Percent(1 - s.device_busy_fraction) +
           " of step time while the host works: the device gaps say what the host runs then.";
  }
  return "";
}

}  // namespace

FrameworkSummary SummarizeFramework(const Model& model, int64_t t0, int64_t t1) {
  FrameworkSummary s;
  s.framework =
      model.run_info().imported_from.empty() ? "pipescope" : model.run_info().imported_from;
  if (t1 <= t0) t1 = model.duration_ns();
  if (model.run_info().imported_from.empty()) {
    // Recorded here: the consumer waits between steps, not inside them; the run's own
    // analysis has its figures and verdict.
    const RangeAnalysis a = Analyze(model, t0, t1);
    s.steps = a.steps;
    s.step_time_s = a.duration_s;
    s.input_wait_fraction = a.input_wait_fraction;
    s.device_busy_fraction = a.device_busy_fraction;
    s.has_device_activity = a.device_busy_fraction > 0;
    s.device_gaps = a.device_gaps;
    s.input_bound = a.input_wait_fraction >= kInputBound;
    s.verdict = a.verdict.text;
    return s;
  }
  const auto step_tracks = TracksOfKinds(model, {EventKind::kStep}, record::kDeviceOp);
  for (const Track* track : step_tracks) {
    for (size_t i = track->FirstEndingAfter(t0); i < track->size() && track->start(i) < t1; ++i)
      ++s.steps;
  }
  const auto steps = Union(step_tracks, t0, t1);
  const int64_t step_ns = Total(steps);
  s.step_time_s = static_cast<double>(step_ns) / 1e9;
  const auto wait_tracks = TracksOfKinds(model, {EventKind::kInputWait}, record::kConsumerOp);
  s.input_measured = !wait_tracks.empty();
  const auto waits = Union(wait_tracks, t0, t1);
  const auto device_spans = Union(DeviceWorkTracks(model), t0, t1);
  s.has_device_activity = !device_spans.empty();
  s.device_gaps = SummarizeDeviceGaps(model, t0, t1);
  if (step_ns > 0) {
    s.input_wait_fraction =
        static_cast<double>(Overlap(waits, steps)) / static_cast<double>(step_ns);
    s.device_busy_fraction =
        static_cast<double>(Overlap(device_spans, steps)) / static_cast<double>(step_ns);
  }
  // TensorFlow: the iterator op with the most own time.
  double iterator_self = 0, best = 0;
  for (const record::StageDef* stage : model.StagesInOrder()) {
    if (stage->kind != "tf.data") continue;
    const double self = static_cast<double>(IteratorOwnNs(model, *stage, t0, t1));
    iterator_self += self;
    if (self > best) {
      best = self;
      s.dominant_op = stage->name;
    }
  }
  if (iterator_self > 0) s.dominant_op_share = best / iterator_self;

  s.input_bound = s.steps > 0 && s.input_wait_fraction >= kInputBound;
  const double mean_step =
      s.steps > 0 ? static_cast<double>(step_ns) / static_cast<double>(s.steps) : 0;
  const double mean_wait = mean_step * s.input_wait_fraction;
  const std::string device =
      s.has_device_activity ? "; the device is busy " + Percent(s.device_busy_fraction) + " of it"
                            : "";
  if (s.steps == 0) {
    s.verdict =
        s.framework == "pytorch" || s.framework == "tensorflow"
            ? "No training steps in this range of the trace."
            : "No training steps found: PyTorch traces mark them as ProfilerStep#N (profile with "
              "a schedule and call prof.step()), TensorFlow traces with "
              "tf.profiler.experimental.Trace('train', step_num=...).";
  } else if (s.framework == "pytorch") {
    // What the wait means depends on who loads: the loop itself, or workers that fall behind.
    const std::optional<bool> workers = DataLoaderRunsWorkers(model);
    std::string who =
        !workers ? ""
        : *workers
            ? ". Its worker processes do not keep up: raise num_workers, or make __getitem__ and "
              "collate_fn cheaper"
            : ". The training loop loads each batch itself (num_workers=0): worker processes "
              "would load the next ones while it trains";
    // Workers that keep up between epoch starts wait only there, while they start: more of
    // them would not help, persistent ones would (the steady steps, whole trace only).
    if (workers && *workers && t0 == 0 && t1 >= model.duration_ns()) {
      if (const auto job = ReadLoaderJob(model);
          job.ok() && job->steady_steps < static_cast<int64_t>(job->steps.size()) &&
          job->step_ns > 0 && job->input_wait_ns / job->step_ns < kInputBound) {
        const int64_t starts = static_cast<int64_t>(job->steps.size()) - job->steady_steps;
        who = ". The waiting is at " +
              (starts == 1 ? std::string("1 step that waits")
                           : std::to_string(starts) + " steps that wait") +
              " far longer than the others (an epoch's first step waits so while its workers "
              "start, unless persistent_workers=True starts them once); between them the "
              "workers keep up (the other steps wait " +
              Percent(job->input_wait_ns / job->step_ns) + "), so more workers would not help";
      }
    }
    s.verdict = s.input_bound
                    ? "Input-bound: each training step waits " + Percent(s.input_wait_fraction) +
                          " of its time in the DataLoader's __next__ (" + Millis(mean_wait) +
                          " of " + Millis(mean_step) + ")" + device + who +
                          ". What If (pipescope-cli whatif; Ctrl+I in the GUI) predicts what other "
                          "settings "
                          "give."
                    : (s.input_measured ? "Not input-bound: the DataLoader's __next__ takes " +
                                              Percent(s.input_wait_fraction) + " of step time (" +
                                              Millis(mean_wait) + " of " + Millis(mean_step) + ")"
                                        : "The trace records no DataLoader __next__, so the "
                                          "input's share of step time is not measured (a loop that "
                                          "loads its own batches, or input marked only by the "
                                          "job's own annotations)") +
                          device + "." + DeviceShare(s);
  } else if (s.framework == "tensorflow") {
    const std::string op = s.dominant_op.empty()
                               ? ""
                               : "; " + s.dominant_op +
                                     " does the most of the iterator's own work (" +
                                     Percent(s.dominant_op_share) + ")";
    s.verdict = s.input_bound
                    ? "Input-bound: each step waits " + Percent(s.input_wait_fraction) +
                          " of its time for tf.data's GetNext (" + Millis(mean_wait) + " of " +
                          Millis(mean_step) + ")" + op + device +
                          ". Give it num_parallel_calls=tf.data.AUTOTUNE, cache or vectorise "
                          "before it, and end the pipeline with prefetch."
                    : (s.input_measured
                           ? "Not input-bound: tf.data's GetNext takes " +
                                 Percent(s.input_wait_fraction) + " of step time"
                           : std::string("The trace records no tf.data iterator's GetNext, so the "
                                         "input's share of step time is not measured")) +
                          op + device + "." + DeviceShare(s);
  } else {
    s.verdict = (s.input_bound ? "Input-bound: steps wait " : "Not input-bound: steps wait ") +
                Percent(s.input_wait_fraction) + " of their time for input" + device + ".";
  }
  return s;
}

}  // namespace pipescope::trace
