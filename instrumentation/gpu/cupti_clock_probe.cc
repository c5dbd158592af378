#include "instrumentation/gpu/cupti_clock_probe.h"

#include <cupti.h>

#include "instrumentation/record/clock.h"

namespace pipescope::gpu {
namespace {

constexpr size_t kProbeBytes = 4;
// A probe not seen complete by then is left with its wide bracket, which the fit drops.
constexpr int64_t kGiveUpNs = 2'000'000;

}  // namespace

CuptiClockProbe::~CuptiClockProbe() {
  Stop();
  if (stream_) cudaStreamDestroy(stream_);
  if (host_) cudaFreeHost(host_);
  if (device_) cudaFree(device_);
}

bool CuptiClockProbe::Prepare(std::string* why_not) {
  auto failed = [&](cudaError_t e, const char* what) {
    *why_not = std::string(what) + ": " + cudaGetErrorString(e);
    return false;
  };
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); e != cudaSuccess)
    return failed(e, "creating the clock probe's stream");
  if (cudaError_t e = cudaHostAlloc(&host_, kProbeBytes, cudaHostAllocDefault); e != cudaSuccess)
    return failed(e, "allocating the clock probe's pinned bytes");
  if (cudaError_t e = cudaMalloc(&device_, kProbeBytes); e != cudaSuccess)
    return failed(e, "allocating the clock probe's device bytes");
  if (CUptiResult r = cuptiGetStreamIdEx(nullptr, stream_, 0, &stream_id_); r != CUPTI_SUCCESS) {
    *why_not = "reading the clock probe's stream id from CUPTI (error " +
               std::to_string(static_cast<int>(r)) + ")";
    return false;
  }
  return true;
}

void CuptiClockProbe::Start(OnBracket on_bracket) {
  on_bracket_ = std::move(on_bracket);
  thread_ = std::thread([this] { Loop(); });
}

void CuptiClockProbe::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CuptiClockProbe::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    ProbeOnce();
    lock.lock();
    wake_.wait_for(lock, kPeriod, [this] { return stop_; });
  }
}

void CuptiClockProbe::ProbeOnce() {
  const int64_t before = record::NowNs();
  if (cudaMemcpyAsync(device_, host_, kProbeBytes, cudaMemcpyHostToDevice, stream_) != cudaSuccess)
    return;  // no copy, no record: nothing to pair
  // Polled rather than synchronised: a sleeping thread would widen the bracket.
  while (cudaStreamQuery(stream_) == cudaErrorNotReady && record::NowNs() - before < kGiveUpNs) {
  }
  on_bracket_(before, record::NowNs());
}

}  // namespace pipescope::gpu
