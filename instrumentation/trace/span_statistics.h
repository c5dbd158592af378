#pragma once
// What an imported trace's spans add up to, by name: how often each name occurs, its total
// time and its own time (without the spans nested in it), the device's kernels by time,
// and the trace's shape (spans, nesting depth, flows, device streams). The Statistics dock
// and `report` show it for traces whose spans are not the ops of a Pipescope pipeline.

#include <cstdint>
#include <string>
#include <vector>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct NameTotals {
  std::string name;
  std::string category;
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t self_ns = 0;  // device work: its whole time
  bool device = false;  // a kernel, copy or set on the device
};

struct SpanStatistics {
  int64_t spans = 0;         // as written: on threads and device streams
  int64_t device_spans = 0;  // kernels, copies and sets
  int max_depth = 0;         // 0: nothing nested
  int64_t flows = 0;
  int device_streams = 0;
  std::vector<NameTotals> names;  // every name, by total time, longest first
};

// Spans that start in [t0, t1) (t1 == 0: the whole trace).
SpanStatistics SummarizeSpans(const Model& model, int64_t t0 = 0, int64_t t1 = 0);

}  // namespace pipescope::trace
