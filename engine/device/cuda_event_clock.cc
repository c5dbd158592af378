#include "engine/device/cuda_event_clock.h"

#include <climits>
#include <cmath>
#include <utility>

#include "engine/device/cuda_status.h"
#include "instrumentation/record/clock.h"

namespace pipescope::engine {
namespace {

constexpr int kTries = 8;
// A rate is measured over at least this long, and no clock is off by a part in a thousand.
constexpr double kMinRateSpanNs = 0.5e9;
constexpr double kMaxRateError = 1e-3;

}  // namespace

CudaEventClock::~CudaEventClock() {
  for (Anchor& a : anchors_) {
    if (a.event) cudaEventDestroy(a.event);
  }
  if (probe_) cudaEventDestroy(probe_);
  if (stream_) cudaStreamDestroy(stream_);
}

Status CudaEventClock::Init() {
  CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                       "creating the clock's stream");
  CUDA_RETURN_IF_ERROR(cudaEventCreate(&probe_), "creating an event");
  for (Anchor& a : anchors_) CUDA_RETURN_IF_ERROR(cudaEventCreate(&a.event), "creating an event");
  return Take(anchors_[current_], nullptr);
}

Status CudaEventClock::MaybeReanchor(bool other_in_use) {
  const Anchor& now = anchors_[current_];
  if (other_in_use || record::NowNs() - now.host_ns < kPeriodNs) return Status::Ok();
  const int next = 1 - current_;
  RETURN_IF_ERROR(Take(anchors_[next], &now));
  current_ = next;
  return Status::Ok();
}

Status CudaEventClock::Take(Anchor& into, const Anchor* previous) {
  int64_t tightest = INT64_MAX;
  for (int i = 0; i < kTries; ++i) {
    const int64_t before = record::NowNs();
    CUDA_RETURN_IF_ERROR(cudaEventRecord(probe_, stream_), "recording an event");
    cudaError_t e;
    while ((e = cudaEventQuery(probe_)) == cudaErrorNotReady) {
    }
    if (e != cudaSuccess) return CudaError(e, "waiting for an event");
    const int64_t after = record::NowNs();
    if (after - before < tightest) {
      tightest = after - before;
      std::swap(into.event, probe_);
      into.host_ns = before + tightest / 2;
    }
  }
  into.rate = previous ? previous->rate : 1.0;
  if (previous) {
    float device_ms = 0;
    CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&device_ms, previous->event, into.event),
                         "timing the clock's anchors");
    const double device_ns = static_cast<double>(device_ms) * 1e6;
    const double rate = static_cast<double>(into.host_ns - previous->host_ns) / device_ns;
    if (device_ns >= kMinRateSpanNs && std::fabs(rate - 1) < kMaxRateError) into.rate = rate;
  }
  return Status::Ok();
}

Result<int64_t> CudaEventClock::HostNs(int anchor, cudaEvent_t event) const {
  const Anchor& a = anchors_[anchor];
  float ms = 0;
  CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, a.event, event), "timing a step");
  return a.host_ns + static_cast<int64_t>(a.rate * static_cast<double>(ms) * 1e6);
}

}  // namespace pipescope::engine
