#pragma once
// A map's per-call overhead (MapOp.call_overhead), a generator's per yield and a filter's per
// element looked at: CPU each call
// spends beside its function's work, the framework's dispatch. One rule for both clocks: the
// engine wraps the function (WithCallOverhead), the simulator adds it to the op's cost per
// call.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/core/duration.h"
#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "engine/work/work_function.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {

// CPython's own call of a Python function from C, measured on the project's 2-core machine by
// scripts/measure-python-costs (a ctypes callback from qsort: 0.42 us, medians of 9 on three
// runs). TensorFlow's py_function bridge
// adds its tensor conversions, which a spec states with call_overhead.
inline constexpr int64_t kDefaultPythonCallNs = 420;

// The map's call overhead: its call_overhead, else the default of its function's kind.
// Errors: an unreadable duration, naming the field.
Result<int64_t> MapCallOverheadNs(const spec::MapOp& map);
// A from_generator's, once a yield: its call_overhead, else none.
Result<int64_t> GeneratorCallOverheadNs(const spec::FromGeneratorSource& generator);
// A filter's, once an input element: its call_overhead, else none.
Result<int64_t> FilterCallOverheadNs(const spec::FilterOp& filter);

// A call's overhead shared by the `elements` one call decides (a uniform draw made for a
// whole batch, where a filter drew once an element), as a call_overhead duration.
inline std::string CallOverheadSharedBy(int64_t call_ns, int64_t elements) {
  return SpecDuration(call_ns / std::max<int64_t>(1, elements));
}

// `fn`, then `ns` of CPU (calibrated work, as cpu_work's) on every call, batched or not.
std::unique_ptr<WorkFunction> WithCallOverhead(std::unique_ptr<WorkFunction> fn, int64_t ns);
// `predicate` after `ns` of CPU on every element it is asked about.
std::unique_ptr<Predicate> WithCallOverhead(std::unique_ptr<Predicate> predicate, int64_t ns);

}  // namespace pipescope::engine
