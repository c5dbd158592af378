#pragma once
// Host times of CUDA events, for the GPU step's spans.
//
// An anchor pins one event to the host clock: recorded on a private idle stream, it runs
// between the host readings taken just before it is recorded and just after it is seen
// complete (polled, so the thread does not sleep through it); the tightest of a few tries,
// at its midpoint, places it to within half that window. The step's stream never has to
// drain for it. Other events are the anchor's host time plus their elapsed device time,
// scaled by the rate measured between the last two anchors: on an H100 the event clock ran
// 17 ppm off the host's (85 us over 5 s), so anchors come every second and carry the rate.
//
// Two anchors are kept: steps queued under the older one are converted with it, since an
// event's elapsed time is only taken from an anchor recorded before it. Only built with
// CUDA.

#include <cuda_runtime.h>

#include <cstdint>

#include "engine/core/status.h"

namespace pipescope::engine {

class CudaEventClock {
 public:
  static constexpr int64_t kPeriodNs = 1'000'000'000;

  CudaEventClock() = default;
  CudaEventClock(const CudaEventClock&) = delete;
  CudaEventClock& operator=(const CudaEventClock&) = delete;
  ~CudaEventClock();

  Status Init();  // the private stream, the events and the first anchor
  // The anchor events recorded from now on are converted with.
  int current() const { return current_; }
  // Anchors again when the current anchor is older than kPeriodNs, unless steps still
  // use the other anchor (`other_in_use`), which a new anchor would overwrite.
  Status MaybeReanchor(bool other_in_use);
  // Host time of `event`, recorded after anchor `anchor` was taken and complete now.
  Result<int64_t> HostNs(int anchor, cudaEvent_t event) const;

 private:
  struct Anchor {
    cudaEvent_t event = nullptr;
    int64_t host_ns = 0;
    double rate = 1;  // host ns per device ns
  };
  Status Take(Anchor& into, const Anchor* previous);

  cudaStream_t stream_ = nullptr;
  cudaEvent_t probe_ = nullptr;
  Anchor anchors_[2];
  int current_ = 0;
};

}  // namespace pipescope::engine
