#pragma once
// Pipescope's autotuner: measure the pipeline (a short recorded run), compute each
// parallel op's work per training step from the trace, allocate cores by water-filling
// (core_allocation.h), size the final prefetch from the consumer's waits, verify by
// running the new configuration, and repeat until a round gains less than 2%. The
// measuring is the caller's (a recorded run on the real engine, or later the simulator),
// so the tuner itself runs nothing.

#include <functional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::engine {

struct TunerMeasurement {
  double steps_per_s = 0;
  trace::RangeAnalysis analysis;
};
using Measurer = std::function<Result<TunerMeasurement>(const spec::PipelineSpec&)>;

struct TunerOptions {
  int cores = 0;           // CPU budget; 0: the spec's budget, else this machine's cores
  double budget_s = 20;    // stop starting rounds after this much tuning time
  double min_gain = 0.02;  // a round must gain this much to be kept
  int max_rounds = 6;
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
  int64_t cores_used = 0;        // workers of the tuned maps and interleaves
  double cpu_cores_busy = 0;     // cores they keep busy, as the allocation predicts (pipescope)
  double tuning_s = 0;
  int rounds = 0;
  std::vector<std::string> log;         // one line per round, for people
  trace::RangeAnalysis final_analysis;  // the last measurement of `tuned`
};

Result<TunerResult> TunePipescope(const spec::PipelineSpec& spec, const Measurer& measure,
                                  const TunerOptions& options);

}  // namespace pipescope::engine
