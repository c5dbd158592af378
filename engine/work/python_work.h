#pragma once
// python(duration, gil_share): a Python function called from the pipeline (tf.py_function,
// a Keras or PyTorch transform). It keeps a core busy for `duration` per call with the same
// calibrated work as cpu_work, holding the process's interpreter lock for `gil_share` of
// it: a real mutex, so parallel calls of Python work in one process take turns, as under
// CPython's GIL, and raising num_parallel_calls on them gains only what they do without it.

#include <cstdint>
#include <mutex>

#include "engine/work/work_function.h"

namespace pipescope::engine {

// The interpreter lock of this process: every python work function holds it while it
// runs Python code.
std::mutex& InterpreterLock();

class PythonWork : public WorkFunction {
 public:
  PythonWork(int64_t duration_ns, double gil_share);
  std::string name() const override { return "python"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;
  // Once per batch: a function called on the batch (a vectorised Python function).
  bool has_batched_form() const override { return true; }
  Status ApplyBatched(Element& batch, int64_t rows, CancellationToken& cancellation) const override;

 private:
  void Call(uint64_t seed) const;
  const uint64_t locked_iterations_;  // the share under the lock
  const uint64_t free_iterations_;    // the rest (numpy's or a C extension's own work)
};

}  // namespace pipescope::engine
