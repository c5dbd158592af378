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
  // The device clock's alignment to the recording's host clock (kept in the trace).
  virtual const ClockAlignment& clock() const = 0;
  virtual uint64_t records() const = 0;  // activity records converted so far
};

// Starts tracing into `recorder` (null and `why_not` set when it cannot: no CUPTI in this
// build, no GPU, or tracing already on). One at a time per process: CUPTI is global.
std::unique_ptr<GpuTracing> StartGpuTracing(record::Recorder& recorder, std::string* why_not);

}  // namespace pipescope::gpu
