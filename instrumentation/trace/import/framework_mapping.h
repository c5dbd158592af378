#pragma once
// What the events of a profiler's trace mean for an input pipeline, turned into a trace
// model the timeline and the analyses read. Every span keeps its name and category
// (interned), its arguments, its thread and its nesting depth there; flows link spans.
// On top of that, copies on the consumer's and the device's lanes say what the spans mean
// (the table is event_vocabulary.h, documented in IMPORT.md):
// - PyTorch (a "ProfilerStep#N" span anywhere): ProfilerStep spans are the steps (not
//   their device-side copies), DataLoader "__next__" spans the step's wait for input;
// - TensorFlow (an "Iterator::..." span anywhere): each iterator path ("Iterator::Root::
//   Prefetch::ParallelMapV2") is an op, its nesting the pipeline's shape, the outermost
//   iterator spans the wait for input; "train"/"train_step"/"train_function" spans the steps;
// - both: device work (kernels, copies, sets by category; everything in a TensorFlow
//   "/device:GPU" process) goes on the device, a lane per stream; other spans on one generic
//   op per process, a lane per thread; counters a counter lane each; instants markers; async
//   spans a thread of their own per category. What is not shown is counted in one warning.
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
