#pragma once
// What the advisor says of a pipeline whatever the speed, beside its advice: findings, a
// sentence each, of what the measurement and the spec show that no change of knobs can make
// right (a shard that reads every record to keep a tenth, a cache that freezes a shuffle,
// workers whose shards overlap, a generator copied into every process, epochs a shuffle
// after a repeat mixes), and the changes not
// tried and why (a cache over a stand-in's count of records).

#include <string>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::engine {

// `measured`: the run's analysis (what each op produced); `machine_ram_bytes`: the RAM
// budget where the spec sets none (cache_memory.h's RamBudget; 0: none).
std::vector<std::string> AdvisorFindings(const spec::PipelineSpec& spec,
                                         const trace::RangeAnalysis& measured,
                                         int64_t machine_ram_bytes = 0);
// `machine_ram_bytes`: the RAM budget where the spec sets none (cache_memory.h's RamBudget).
std::vector<std::string> AdvisorNotTried(const spec::PipelineSpec& spec,
                                         int64_t machine_ram_bytes = 0);
// The knobs the spec writes AUTOTUNE (tf.data's autotuner sets them as the pipeline runs) and
// the value each is simulated at on `cpu_cores`, in a sentence; empty where none is.
std::vector<std::string> AutotunedKnobs(const spec::PipelineSpec& spec, int cpu_cores);
// The ops whose cost is a stand-in the code did not show (WorkFunction.cost_is_stand_in): no
// advice that rests on them is sure.
std::vector<std::string> StandInCostOps(const spec::PipelineSpec& spec);

}  // namespace pipescope::engine
