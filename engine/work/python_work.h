#pragma once
// python(duration, gil_share): a Python function called from the pipeline (tf.py_function,
// a Keras or PyTorch transform). It keeps a core busy for `duration` per call with the same
// calibrated work as cpu_work, holding the process's interpreter lock for `gil_share` of
// it: a real mutex, so parallel calls of Python work in one process take turns, as under
// CPython's GIL, and raising num_parallel_calls on them gains only what they do without it.

#include <cstdint>
#include <mutex>

#include "engine/runtime/storage_device.h"
#include "engine/work/work_function.h"
#include "instrumentation/record/recorder.h"

namespace pipescope::engine {

// A Python process of the pipeline: the main one (the training loop's) or a worker process
// (a DataLoader's, Keras's use_multiprocessing), each with its own interpreter lock. A
// worker "process" here is a group of threads that run under it (PythonProcessScope).
class PythonProcess {
 public:
  std::mutex& interpreter_lock() { return lock_; }

 private:
  std::mutex lock_;
};

// The interpreter lock of the calling thread's process (the main process's unless a
// PythonProcessScope says otherwise): every python work function holds it while it runs
// Python code.
std::mutex& InterpreterLock();

// The calling thread's process: a thread an op starts runs in the process of the thread that
// started it (WorkerThreads, prefetch's producer), as threads do.
PythonProcess& CurrentPythonProcess();

// While alive, the calling thread runs in `process`: its Python work holds that process's
// lock. Scopes nest (the previous process is restored).
class PythonProcessScope {
 public:
  explicit PythonProcessScope(PythonProcess& process);
  ~PythonProcessScope();
  PythonProcessScope(const PythonProcessScope&) = delete;
  PythonProcessScope& operator=(const PythonProcessScope&) = delete;

 private:
  PythonProcess* previous_;
};

// While alive, the calling thread's waits for its interpreter lock are recorded as kLockWait
// spans of `op` (the op whose Python runs on it: its function, a DataLoader's receive).
// Without one, or with no recorder, they are not recorded. Scopes nest.
class LockWaitsRecordedAs {
 public:
  LockWaitsRecordedAs(record::Recorder* recorder, uint16_t op);
  ~LockWaitsRecordedAs();
  LockWaitsRecordedAs(const LockWaitsRecordedAs&) = delete;
  LockWaitsRecordedAs& operator=(const LockWaitsRecordedAs&) = delete;

 private:
  record::Recorder* previous_recorder_;
  uint16_t previous_op_;
};

// The calling thread's process's interpreter lock, taken. A take that finds another thread
// holding it waits, and the wait is recorded (LockWaitsRecordedAs); one that does not reads
// no clock, so native work and uncontended Python pay nothing for the recording.
std::unique_lock<std::mutex> TakeInterpreterLock();

class PythonWork : public WorkFunction {
 public:
  // What a call returns, where the code says, is the function's (sized_output.h).
  // `wait_ns`: blocked after the Python, per call, with the lock released (time.sleep, a
  // read from storage). `read.bytes` > 0 with a `storage`: each call first reads files of its
  // own from the disk every reader shares, the lock released.
  PythonWork(int64_t duration_ns, double gil_share, int64_t wait_ns = 0, CallFileRead read = {},
             StorageDevicePtr storage = nullptr);
  std::string name() const override { return "python"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;
  // Once per batch: a function called on the batch (a vectorised Python function).
  bool has_batched_form() const override { return true; }
  Status ApplyBatched(Element& batch, int64_t rows, CancellationToken& cancellation) const override;

 private:
  // The Python, then the wait; false where cancelled during the wait.
  bool Call(uint64_t seed, CancellationToken& cancellation) const;
  const uint64_t locked_iterations_;  // the share under the lock
  const uint64_t free_iterations_;    // the rest (numpy's or a C extension's own work)
  const int64_t wait_ns_;
  const CallFileRead read_;
  const StorageDevicePtr storage_;
};

}  // namespace pipescope::engine
