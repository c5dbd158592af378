#pragma once
// GPU activity tracing: CUPTI's records of kernels, copies and sets, converted to trace
// events of the device and handed to a recorder while a run goes on. Only builds with
// CUDA have it (cupti_collector.cc); elsewhere StartGpuTracing says why not.

#include <memory>
#include <string>

#include "instrumentation/gpu/device_activity.h"
#include "instrumentation/record/recorder.h"

namespace pipescope::gpu {

class GpuTracing {
 public:
  virtual ~GpuTracing() = default;  // flushes what CUPTI still holds and stops tracing
  // Delivers every record CUPTI holds now (call before the recorder's last drain).
  virtual void Flush() = 0;
  // The device clock's alignment to the recording's host clock now (kept in the trace); it
  // follows the clock probes as they come back.
  virtual ClockAlignment clock() const = 0;
  virtual uint64_t records() const = 0;  // activity records converted so far
  // Clock probes paired with their records so far: 0 on a long run means the alignment
  // stayed the start-up one (the probes could not start).
  virtual uint64_t clock_probes() const = 0;
};

// Starts tracing into `recorder` (null and `why_not` set when it cannot: no CUPTI in this
// build, no GPU, or tracing already on). One at a time per process: CUPTI is global.
std::unique_ptr<GpuTracing> StartGpuTracing(record::Recorder& recorder, std::string* why_not);

}  // namespace pipescope::gpu
