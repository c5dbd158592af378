#pragma once
// What the events of a profiler's trace mean for an input pipeline, turned into a trace
// model the timeline and the analyses read:
// - PyTorch (a "ProfilerStep#N" span anywhere): ProfilerStep spans are the steps, DataLoader
//   "__next__" spans the step's wait for input;
// - TensorFlow (an "Iterator::..." span anywhere): each iterator path ("Iterator::Root::
//   Prefetch::ParallelMapV2") is an op, its nesting the pipeline's shape, the outermost
//   iterator spans the wait for input; "train"/"train_step"/"train_function" spans the steps;
// - both: GPU kernels, memcpy and memset (by category, or in a "/device:GPU" process) are
//   device activity, one lane per stream;
// - everything else becomes one generic op per process, a lane per thread; counters a
//   counter lane each; instants markers; what has no place yet (flows, async spans) is
//   counted in a warning.
// Each span's own time (without the spans nested in it on its thread) is kept as its self
// time.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "instrumentation/trace/import/trace_events.h"
#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct MappedTrace {
  std::unique_ptr<Model> model;
  std::string framework;  // "pytorch", "tensorflow" or "chrome"
  std::vector<std::string> warnings;
};

// `progress` hears the share of spans placed and may cancel (then the result has no model).
MappedTrace MapTraceEvents(TraceEvents events, const std::string& name,
                           const std::function<bool(double)>& progress = {});

}  // namespace pipescope::trace
