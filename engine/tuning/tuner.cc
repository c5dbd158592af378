#include "engine/tuning/tuner.h"

#include <algorithm>
#include <utility>

namespace pipescope::engine {

trace::RateInterval IntervalOf(const TunerMeasurement& m) {
  return {m.steps_per_s, m.half_width, m.runs};
}

TunerMeasurement MeasurementOf(trace::RangeAnalysis analysis) {
  TunerMeasurement m;
  m.steps_per_s = analysis.steps_per_s;
  m.half_width = analysis.steps_per_s_half_width;
  m.analysis = std::move(analysis);
  return m;
}

std::string RateForPeople(const TunerMeasurement& m) {
  return trace::StepRateText(IntervalOf(m)) +
         (m.runs > 1 ? ", " + std::to_string(m.runs) + " runs" : std::string());
}

Result<TunerMeasurement> MeasureUntilKnown(const spec::PipelineSpec& spec, const Measurer& measure,
                                           const TunerOptions& options,
                                           const TuningStopwatch& stopwatch, TunerResult& result) {
  std::vector<trace::RateInterval> runs;
  TunerMeasurement last;
  trace::RateInterval known;
  do {
    ASSIGN_OR_RETURN(last, measure(spec));
    ++result.measurements;
    runs.push_back(IntervalOf(last));
    known = trace::CombineRuns(runs);
  } while (known.half_width > options.noise_target * known.per_s &&
           static_cast<int>(runs.size()) < options.max_runs &&
           stopwatch.elapsed_s() < options.budget_s);
  last.steps_per_s = known.per_s;
  last.half_width = known.half_width;
  last.runs = known.runs;
  return last;
}

bool ClearlyFaster(const TunerMeasurement& candidate, const TunerMeasurement& best,
                   const TunerOptions& options) {
  return trace::ClearlyFaster(IntervalOf(candidate), IntervalOf(best), options.min_gain);
}

Result<TunerMeasurement> MeasureAsGiven(const spec::PipelineSpec& spec, const Measurer& measure,
                                        const TunerOptions& options,
                                        const TuningStopwatch& stopwatch, TunerResult& result) {
  result.tuned = spec;
  ASSIGN_OR_RETURN(TunerMeasurement given,
                   MeasureUntilKnown(spec, measure, options, stopwatch, result));
  result.steps_per_s_before = given.steps_per_s;
  result.half_width_before = given.half_width;
  result.log.push_back("measured the spec as given: " + RateForPeople(given));
  return given;
}

void FinishTuning(const spec::PipelineSpec& given_spec, TunerMeasurement given,
                  TunerMeasurement last, std::vector<TunedKnob> knobs, double tuning_s,
                  TunerResult& result) {
  if (last.steps_per_s < given.steps_per_s) {
    // Within the noise it is a tie, not slower: the spec as given is kept all the same.
    const bool slower = trace::ClearlyFaster(IntervalOf(given), IntervalOf(last), kLeastRealGain);
    result.log.push_back("the tuned configuration measured " + RateForPeople(last) +
                         (slower ? ", slower than" : ", no faster beyond the noise than") +
                         " the spec as given (" + RateForPeople(given) +
                         "): kept the spec as given");
    result.tuned = given_spec;
    result.kept_given = true;
    last = std::move(given);
    for (TunedKnob& k : knobs) k.after = k.before;
    result.other_settings.clear();
  }
  result.steps_per_s_after = last.steps_per_s;
  result.half_width_after = last.half_width;
  result.buffer_bytes = last.buffer_bytes;
  result.final_analysis = std::move(last.analysis);
  result.worker_threads = 0;
  result.loader_workers = 0;
  for (const TunedKnob& k : knobs) {
    // Threads of maps and interleaves; a DataLoader's worker processes (0: it loads in the
    // main process) and a Keras enqueuer's workers.
    if (k.name.ends_with(".num_parallel_calls")) {
      result.worker_threads += std::max<int64_t>(k.after, 1);
    } else if (k.name.ends_with(".num_workers") || k.name.ends_with(".workers")) {
      result.loader_workers += std::max<int64_t>(k.after, 0);
    }
  }
  result.knobs = std::move(knobs);
  result.tuning_s = tuning_s;
}

}  // namespace pipescope::engine
