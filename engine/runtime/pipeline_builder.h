#pragma once
// Turns a PipelineSpec into a chain of Datasets through its plan (pipeline_plan.h: validated,
// every knob resolved, batched-ness worked out once for both clocks), creating (or reusing,
// on a rebuild) each op's counters and knobs in the registry.

#include <optional>
#include <vector>

#include "engine/runtime/iterator.h"
#include "engine/runtime/stage_registry.h"
#include "engine/runtime/storage_device.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct BuiltPipeline {
  DatasetPtr dataset;
  bool output_batched = false;  // the consumer receives batches (rows = leading dimension)
  StorageDevicePtr storage;     // the spec's disk, which its reads share; null: none
};

// `cpu_cores` is the CPU budget; AUTOTUNE knobs start from it.
Result<BuiltPipeline> BuildPipeline(const spec::PipelineSpec& spec, StageRegistry& registry,
                                    int cpu_cores);

// The elements of from_tensor_slices, in order: its values, its strings, or 0 .. count - 1.
std::vector<Tensor> SliceTensors(const spec::FromTensorSlicesSource& f);
// The value of record `index` of a pass over `source` (a generator's yield `index`, a batch
// where it yields batches), where its records are values (a range's numbers,
// from_tensor_slices' entries); nullopt for records of files or synthetic ones, whose
// content only a run reads.
std::optional<Tensor> SourceValue(const spec::Source& source, int64_t index);

}  // namespace pipescope::engine
