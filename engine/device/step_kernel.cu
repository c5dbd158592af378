// The GPU training step's compute: every thread runs a chain of dependent multiply-adds
// over its own value, so a launch takes a time proportional to `iterations` and occupies
// every SM, like a training step's kernels.
#include <cuda_runtime.h>

namespace pipescope::engine::cuda {

__global__ void StepKernel(float* values, int count, long long iterations) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float x = values[i];
  for (long long k = 0; k < iterations; ++k) x = x * 0.999999f + 1e-6f;
  values[i] = x;
}

cudaError_t LaunchStepKernel(float* values, int count, long long iterations, cudaStream_t stream) {
  constexpr int kThreads = 256;
  StepKernel<<<(count + kThreads - 1) / kThreads, kThreads, 0, stream>>>(values, count, iterations);
  return cudaGetLastError();
}

}  // namespace pipescope::engine::cuda
