#pragma once
// The probes of ClockTracker on a real GPU: every kPeriod a 4-byte host-to-device copy on a
// private stream (a copy engine runs it even while the step kernel fills every SM), timed
// on the host from just before it is enqueued to just after it is seen complete. The
// collector recognises the probes' CUPTI records by their stream and keeps them out of the
// trace. Only built with CUDA.

#include <cuda_runtime.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace pipescope::gpu {

class CuptiClockProbe {
 public:
  static constexpr std::chrono::milliseconds kPeriod{200};
  // Called from the probe's thread with each probe's host bracket, in issue order.
  using OnBracket = std::function<void(int64_t host_before_ns, int64_t host_after_ns)>;

  CuptiClockProbe() = default;
  CuptiClockProbe(const CuptiClockProbe&) = delete;
  CuptiClockProbe& operator=(const CuptiClockProbe&) = delete;
  ~CuptiClockProbe();

  // Makes the stream and buffers and learns the stream's CUPTI id (call after CUPTI's
  // activity tracing is enabled); false with `why_not` when it cannot.
  bool Prepare(std::string* why_not);
  void Start(OnBracket on_bracket);  // the thread probing every kPeriod until Stop
  void Stop();
  uint32_t stream_id() const { return stream_id_; }

 private:
  void Loop();
  void ProbeOnce();

  cudaStream_t stream_ = nullptr;
  void* host_ = nullptr;    // pinned, 4 bytes
  void* device_ = nullptr;  // 4 bytes
  uint32_t stream_id_ = UINT32_MAX;
  OnBracket on_bracket_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
};

}  // namespace pipescope::gpu
