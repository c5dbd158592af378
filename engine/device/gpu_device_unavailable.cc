// MakeGpuDevice in builds without CUDA.
#include "engine/device/gpu_device.h"

namespace pipescope::engine {

Result<std::unique_ptr<DeviceStep>> MakeGpuDevice(int64_t, int, CancellationToken&) {
  return Status(StatusCode::kUnimplemented,
                "this build of Pipescope has no CUDA support (configure with "
                "PIPESCOPE_WITH_CUDA=ON on a machine with the CUDA toolkit)");
}

}  // namespace pipescope::engine
