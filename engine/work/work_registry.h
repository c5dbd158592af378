#pragma once
// Builds work functions and filter predicates from their spec messages.

#include <memory>
#include <string>

#include "engine/core/element.h"
#include "engine/runtime/storage_device.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "engine/work/work_function.h"

namespace pipescope::engine {

// `storage`: the spec's disk, which reads of files share (Python's read_bytes); null: none.
Result<std::unique_ptr<WorkFunction>> MakeWorkFunction(const spec::WorkFunction& fn,
                                                       StorageDevicePtr storage = nullptr);
bool WorkFunctionHasBatchedForm(const spec::WorkFunction& fn);
// Whether the function hands an element on with its value unchanged (it costs time, or
// nothing): a number stays the number a mod_equals filter or repeat_by_value reads.
bool WorkFunctionKeepsValue(const spec::WorkFunction& fn);
// Whether its work is time alone, the user's code's cost (python, cpu_work, io_wait,
// identity), whatever size it says a call returns: what a DataLoader's or a Keras
// Sequence's __getitem__ stands for.
bool WorkFunctionOnlyCosts(const spec::WorkFunction& fn);
// Whether the function draws random numbers (augmentation): a cache after it freezes its
// draws, and it may not move across a cache.
bool WorkFunctionIsRandom(const spec::WorkFunction& fn);
// The share of a call's time spent computing, from the spec's durations: 0 for an io_wait,
// duration / (duration + wait) for Python or cpu_work with a wait (a read from remote
// storage, a sleep), 1 for the rest. A function that mostly waits uses workers beyond the
// cores.
double WorkFunctionCpuFraction(const spec::WorkFunction& fn);
// It blocks for some of a call (record::kTraitWaits): a wait of its own, or, where the spec
// names a disk (`disk`), files it reads from it (read_bytes); or for most of it, so that
// workers beyond the cores are worth trying.
inline bool WorkFunctionWaits(const spec::WorkFunction& fn, bool disk = false) {
  return WorkFunctionCpuFraction(fn) < 1 ||
         (disk && (fn.cpu_work().read_bytes() > 0 || fn.python().read_bytes() > 0));
}
inline bool WorkFunctionMostlyWaits(const spec::WorkFunction& fn) {
  return WorkFunctionCpuFraction(fn) < 0.5;
}
std::string WorkFunctionName(const spec::WorkFunction& fn);

// A filter predicate: true keeps the element. Immutable, callable from any thread.
class Predicate {
 public:
  virtual ~Predicate() = default;
  virtual Result<bool> Keep(const Element& element) const = 0;
};
Result<std::unique_ptr<Predicate>> MakePredicate(const spec::Predicate& predicate);

}  // namespace pipescope::engine
