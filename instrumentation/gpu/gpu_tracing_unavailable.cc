// StartGpuTracing in builds without CUDA.
#include "instrumentation/gpu/gpu_tracing.h"

namespace pipescope::gpu {

std::unique_ptr<GpuTracing> StartGpuTracing(record::Recorder&, std::string* why_not) {
  if (why_not) *why_not = "this build has no CUPTI (built without CUDA)";
  return nullptr;
}

}  // namespace pipescope::gpu
