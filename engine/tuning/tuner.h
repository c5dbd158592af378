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

namespace pipescope::engine {

struct TunerMeasurement {
  double steps_per_s = 0;
  trace::RangeAnalysis analysis;
  // What the buffers held at the measured knobs (Pipeline::BufferMemoryBytes), and a
  // recent output element's size per buffered op (0 or empty: not measured).
  int64_t buffer_bytes = 0;
  std::map<std::string, int64_t> element_bytes;
};
using Measurer = std::function<Result<TunerMeasurement>(const spec::PipelineSpec&)>;

struct TunerOptions {
  int cores = 0;           // CPU budget; 0: the spec's budget, else this machine's cores
  double budget_s = 20;    // stop starting rounds after this much tuning time
  double min_gain = 0.02;  // a round must gain this much to be kept
  int max_rounds = 6;
  double ram_bytes = 0;  // RAM budget for buffers (tfdata's hill climb stops there); 0: none
  bool explain = false;  // tfdata: each hill-climb step and why it stopped, in the log
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
  std::vector<TunedKnob> knobs;  // the knobs the tuner set, before and after
  int64_t worker_threads = 0;    // workers of the tuned maps and interleaves
  int64_t buffer_bytes = 0;      // what the tuned buffers hold (last measurement)
  double cpu_cores_busy = 0;     // cores they keep busy, as the allocation predicts (pipescope)
  double tuning_s = 0;
  int rounds = 0;
  bool kept_given = false;       // the tuned configuration measured slower: the result is the given
  std::vector<std::string> log;  // one line per round, for people
  trace::RangeAnalysis final_analysis;  // the last measurement of `tuned`
};

// Measures the spec as given: the result's "before" and the first line of its log.
Result<TunerMeasurement> MeasureAsGiven(const spec::PipelineSpec& spec, const Measurer& measure,
                                        TunerResult& result);

// Closes a tuning: the figures of the last measurement, the knobs before and after, the
// workers of the tuned parallelisms, and the time it took. A tuning never hands back a
// configuration that measured slower than the spec as given: then the given spec, its
// measurement and its knobs are the result, and the log says so.
void FinishTuning(const spec::PipelineSpec& given_spec, TunerMeasurement given,
                  TunerMeasurement last, std::vector<TunedKnob> knobs, double tuning_s,
                  TunerResult& result);

// Seconds since it was made: a tuning's budget is counted on it.
class TuningStopwatch {
 public:
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace pipescope::engine
