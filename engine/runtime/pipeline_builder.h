#pragma once
// Turns a validated PipelineSpec into a chain of Datasets, creating (or reusing, on a
// rebuild) each op's counters and knobs in the registry.

#include "engine/runtime/iterator.h"
#include "engine/runtime/stage_registry.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct BuiltPipeline {
  DatasetPtr dataset;
  bool output_batched = false;  // the consumer receives batches (rows = leading dimension)
};

// `cpu_cores` is the CPU budget; AUTOTUNE knobs start from it.
Result<BuiltPipeline> BuildPipeline(const spec::PipelineSpec& spec, StageRegistry& registry,
                                    int cpu_cores);

// Knob ranges, shared with the CLI's --set and the UI's editors.
struct KnobRange {
  int64_t min;
  int64_t max;
};
inline constexpr KnobRange kParallelismRange{1, 256};
inline constexpr KnobRange kCycleLengthRange{1, 1024};
inline constexpr KnobRange kBlockLengthRange{1, 1 << 20};
inline constexpr KnobRange kPrefetchBufferRange{0, 1 << 20};
inline constexpr KnobRange kShuffleBufferRange{1, int64_t{1} << 30};
inline constexpr KnobRange kBatchSizeRange{1, 1 << 20};

// Where AUTOTUNE knobs start (parallelism and cycle length start at the CPU budget), shared
// with the simulator so that a simulated run starts where a real one does.
inline constexpr int64_t kPrefetchBufferAutotuneStart = 2;
inline constexpr int64_t kShuffleBufferAutotuneStart = 1;
inline constexpr int64_t kBatchSizeAutotuneStart = 1;

}  // namespace pipescope::engine
