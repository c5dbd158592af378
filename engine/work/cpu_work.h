#pragma once
// cpu_work(duration): keeps a core busy for `duration` with real integer arithmetic.
// The amount of work is fixed (iterations calibrated once per process against thread CPU
// time), not a wall-clock deadline, so oversubscribed or preempted workers really take
// longer, exactly as a real CPU-bound map would.

#include <cstdint>

#include "engine/runtime/storage_device.h"
#include "engine/work/work_function.h"

namespace pipescope::engine {

// Iterations of the work loop per nanosecond of CPU time on this machine (calibrated on
// first use, thread-safe).
double CpuWorkIterationsPerNs();
// Runs `iterations` of the work loop; the result keeps the compiler from removing it.
uint64_t RunCpuWorkLoop(uint64_t iterations, uint64_t seed);
// The iterations that take `ns` of CPU time (none for a negative time).
uint64_t CpuWorkIterations(double ns);
// Keeps the calling thread's core busy for `ns` of CPU time (a worker process's start-up,
// unpickling a received batch).
void BurnCpuNs(int64_t ns, uint64_t seed);

class CpuWork : public WorkFunction {
 public:
  // `wait_ns`: blocked after the work, per call, using no core (a read from remote storage).
  // `read.bytes` > 0 with a `storage`: each call first reads a file of its own from the disk
  // every reader shares (tf.io.read_file's).
  explicit CpuWork(int64_t duration_ns, int64_t wait_ns = 0, CallFileRead read = {},
                   StorageDevicePtr storage = nullptr);
  std::string name() const override { return "cpu_work"; }
  Status Apply(Element& element, CancellationToken& cancellation) const override;
  bool has_batched_form() const override { return true; }
  Status ApplyBatched(Element& batch, int64_t rows, CancellationToken& cancellation) const override;

 private:
  void Burn(int64_t units, uint64_t seed) const;
  // The files of `calls` calls, one after another; false where cancelled while waiting.
  bool ReadFiles(int64_t calls, uint64_t seed, CancellationToken& cancellation) const;
  const uint64_t iterations_;
  const int64_t wait_ns_;
  const CallFileRead read_;
  const StorageDevicePtr storage_;
};

}  // namespace pipescope::engine
