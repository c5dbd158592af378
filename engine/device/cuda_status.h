#pragma once
// CUDA runtime errors as Status, for the CUDA-only files of the device.
#include <cuda_runtime.h>

#include <string>

#include "engine/core/status.h"

namespace pipescope::engine {

inline Status CudaError(cudaError_t e, const std::string& what) {
  return Status(StatusCode::kInternal, "CUDA: " + what + ": " + cudaGetErrorString(e));
}

#define CUDA_RETURN_IF_ERROR(call, what)               \
  do {                                                 \
    if (cudaError_t e_ = (call); e_ != cudaSuccess) {  \
      return ::pipescope::engine::CudaError(e_, what); \
    }                                                  \
  } while (0)

}  // namespace pipescope::engine
