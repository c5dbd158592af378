#pragma once
// The GPU training step (engine/device/cuda_device.cc in builds with CUDA): each step
// copies the batch's bytes host->device from pinned memory on a stream and runs a compute
// kernel calibrated at start-up to last `step_time`, with at most `max_in_flight` steps
// queued. Builds without CUDA, and machines without a GPU, get an error that says why, and
// MakeDevice falls back to the simulated device.

#include <memory>

#include "engine/device/device_step.h"
#include "engine/runtime/cancellation.h"

namespace pipescope::engine {

Result<std::unique_ptr<DeviceStep>> MakeGpuDevice(int64_t step_time_ns, int max_in_flight,
                                                  CancellationToken& cancellation);

}  // namespace pipescope::engine
