#include "engine/tuning/tuner.h"

#include <algorithm>
#include <utility>

namespace pipescope::engine {

Result<TunerMeasurement> MeasureAsGiven(const spec::PipelineSpec& spec, const Measurer& measure,
                                        TunerResult& result) {
  result.tuned = spec;
  ASSIGN_OR_RETURN(TunerMeasurement given, measure(spec));
  result.steps_per_s_before = given.steps_per_s;
  result.log.push_back("measured the spec as given: " + std::to_string(given.steps_per_s) +
                       " steps/s");
  return given;
}

void FinishTuning(const spec::PipelineSpec& given_spec, TunerMeasurement given,
                  TunerMeasurement last, std::vector<TunedKnob> knobs, double tuning_s,
                  TunerResult& result) {
  if (last.steps_per_s < given.steps_per_s) {
    result.log.push_back("the tuned configuration measured " + std::to_string(last.steps_per_s) +
                         " steps/s, slower than the spec as given (" +
                         std::to_string(given.steps_per_s) + "): kept the spec as given");
    result.tuned = given_spec;
    result.kept_given = true;
    last = std::move(given);
    for (TunedKnob& k : knobs) k.after = k.before;
  }
  result.steps_per_s_after = last.steps_per_s;
  result.buffer_bytes = last.buffer_bytes;
  result.final_analysis = std::move(last.analysis);
  result.worker_threads = 0;
  for (const TunedKnob& k : knobs) {
    if (k.name.ends_with(".num_parallel_calls"))
      result.worker_threads += std::max<int64_t>(k.after, 1);
  }
  result.knobs = std::move(knobs);
  result.tuning_s = tuning_s;
}

}  // namespace pipescope::engine
