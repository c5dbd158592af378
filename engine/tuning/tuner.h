#pragma once
// What the two autotuners (pipescope_tuner.h, tfdata_tuner.h) share: how they measure, what
// they are given and what they return, and the steps around their rounds that are the same
// for both (measuring the spec as given, timing, the final report of knobs and workers).

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/trace/analysis.h"
#include "instrumentation/trace/rate_interval.h"

namespace pipescope::engine {

struct TunerMeasurement {
  double steps_per_s = 0;
  // How well steps_per_s is known: its 95% interval's half width, over `runs` runs
  // (rate_interval.h). A tuner keeps a change only when it gains beyond it.
  double half_width = 0;
  int runs = 1;
  trace::RangeAnalysis analysis;
  // What the buffers held at the measured knobs (Pipeline::BufferMemoryBytes), and a
  // recent output element's size per buffered op (0 or empty: not measured).
  int64_t buffer_bytes = 0;
  std::map<std::string, int64_t> element_bytes;
};
// A measurement's rate and how well it is known.
trace::RateInterval IntervalOf(const TunerMeasurement& m);
// A measurement of `analysis`: its rate and interval.
TunerMeasurement MeasurementOf(trace::RangeAnalysis analysis);
// "123.4 ± 2.1 steps/s" (with ", 3 runs" when it took several), for the tuners' logs.
std::string RateForPeople(const TunerMeasurement& m);

using Measurer = std::function<Result<TunerMeasurement>(const spec::PipelineSpec&)>;

// The least gain called real, by the tuners and the advisor alike: what a run's own rate
// varies by on a quiet machine (a change that gains less is no change to make).
inline constexpr double kLeastRealGain = 0.03;

struct TunerOptions {
  int cores = 0;         // CPU budget; 0: the spec's budget, else this machine's cores
  double budget_s = 20;  // stop starting rounds after this much tuning time
  // A round must gain this much to be kept, and beyond the noise: the advisor's least gain
  // too, so that the tuner keeps no change the advice calls noise.
  double min_gain = kLeastRealGain;
  // A configuration is measured again (up to max_runs runs, while the budget lasts) until its
  // rate's 95% interval is within noise_target of it: one run of a noisy machine does not
  // tell a gain of a few percent from chance. Measurers that are exact (the simulator)
  // report an interval that the first run already meets.
  int max_runs = 3;
  double noise_target = 0.03;
  int max_rounds = 6;
  double ram_bytes = 0;  // RAM budget for buffers (tfdata's hill climb stops there); 0: none
  bool explain = false;  // tfdata: each hill-climb step and why it stopped, in the log
  // Whether the search may try settings a running pipeline cannot take without a rebuild
  // (deterministic, a loader's persistent_workers): a live tuning does not, since a rebuild
  // it then undoes costs the run its buffers twice.
  bool try_rebuilds = true;
};

struct TunedKnob {
  std::string name;  // "op.knob"
  int64_t before = 0;
  int64_t after = 0;
};

struct TunerResult {
  spec::PipelineSpec tuned;
  double steps_per_s_before = 0;
  double steps_per_s_after = 0;
  double half_width_before = 0;  // their 95% intervals' half widths
  double half_width_after = 0;
  int measurements = 0;          // runs measured, repeats included (MeasureUntilKnown)
  std::vector<TunedKnob> knobs;  // the knobs the tuner set, before and after
  // Settings beyond integer knobs that the tuning kept ("read.deterministic=false").
  std::vector<std::string> other_settings;
  int64_t worker_threads = 0;  // threads of the tuned maps and interleaves
  // Workers of the tuned DataLoaders (processes) and Keras enqueuers (threads or processes).
  int64_t loader_workers = 0;
  int64_t buffer_bytes = 0;   // what the tuned buffers hold (last measurement)
  double cpu_cores_busy = 0;  // cores they keep busy, as the allocation predicts (pipescope)
  double tuning_s = 0;
  int rounds = 0;
  bool kept_given = false;       // the tuned configuration measured slower: the result is the given
  std::vector<std::string> log;  // one line per round, for people
  trace::RangeAnalysis final_analysis;  // the last measurement of `tuned`
};

// Seconds since it was made: a tuning's budget is counted on it.
class TuningStopwatch {
 public:
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Measures `spec` until its rate is known within options.noise_target, or options.max_runs
// runs, or the budget is spent: the mean rate of the runs, with the interval of their
// spread or of their own step variance, whichever is wider; the figures of the last run.
// Counts its runs in result.measurements.
Result<TunerMeasurement> MeasureUntilKnown(const spec::PipelineSpec& spec, const Measurer& measure,
                                           const TunerOptions& options,
                                           const TuningStopwatch& stopwatch, TunerResult& result);

// Whether `candidate` is faster than `best` beyond both intervals and by options.min_gain.
bool ClearlyFaster(const TunerMeasurement& candidate, const TunerMeasurement& best,
                   const TunerOptions& options);

// Measures the spec as given (MeasureUntilKnown): the result's "before" and the first line
// of its log.
Result<TunerMeasurement> MeasureAsGiven(const spec::PipelineSpec& spec, const Measurer& measure,
                                        const TunerOptions& options,
                                        const TuningStopwatch& stopwatch, TunerResult& result);

// Closes a tuning: the figures of the last measurement, the knobs before and after, the
// workers of the tuned parallelisms, and the time it took. A tuning never hands back a
// configuration that measured slower than the spec as given: then the given spec, its
// measurement and its knobs are the result, and the log says so.
void FinishTuning(const spec::PipelineSpec& given_spec, TunerMeasurement given,
                  TunerMeasurement last, std::vector<TunedKnob> knobs, double tuning_s,
                  TunerResult& result);

}  // namespace pipescope::engine
