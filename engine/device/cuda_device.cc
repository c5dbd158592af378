// The CUDA training step. See gpu_device.h.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/device/cuda_event_clock.h"
#include "engine/device/cuda_status.h"
#include "engine/device/gpu_device.h"

namespace pipescope::engine {
namespace cuda {
cudaError_t LaunchStepKernel(float* values, int count, long long iterations, cudaStream_t stream);
}  // namespace cuda
namespace {

// One queued step: its pinned staging buffer and device input buffer (reused once the
// step has finished), and events around its copy and kernel.
struct Slot {
  void* pinned = nullptr;
  void* device_input = nullptr;
  size_t capacity = 0;
  cudaEvent_t start = nullptr;
  cudaEvent_t end = nullptr;
  uint64_t element = 0;
  int anchor = 0;  // the event clock's anchor its events are timed from
};

class CudaDevice : public DeviceStep {
 public:
  CudaDevice(int64_t step_time_ns, int max_in_flight, CancellationToken& cancellation)
      : step_time_ns_(step_time_ns),
        max_in_flight_(std::max(1, max_in_flight)),
        cancellation_(cancellation) {}

  ~CudaDevice() override {
    if (stream_) cudaStreamSynchronize(stream_);
    for (Slot& s : slots_) {
      if (s.pinned) cudaFreeHost(s.pinned);
      if (s.device_input) cudaFree(s.device_input);
      if (s.start) cudaEventDestroy(s.start);
      if (s.end) cudaEventDestroy(s.end);
    }
    if (values_) cudaFree(values_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Status Init() {
    int devices = 0;
    CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&devices), "no usable GPU");
    if (devices == 0) return Status(StatusCode::kNotFound, "no GPU on this machine");
    CUDA_RETURN_IF_ERROR(cudaSetDevice(0), "selecting GPU 0");
    int sms = 0;
    CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0),
                         "reading the SM count");
    count_ = std::max(1, sms) * 2048;  // full occupancy of every SM
    CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                         "creating a stream");
    CUDA_RETURN_IF_ERROR(cudaMalloc(&values_, sizeof(float) * static_cast<size_t>(count_)),
                         "allocating the step's buffer");
    CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(values_, 0, sizeof(float) * static_cast<size_t>(count_), stream_),
        "clearing the step's buffer");
    slots_.resize(static_cast<size_t>(max_in_flight_) + 1);
    for (Slot& s : slots_) {
      CUDA_RETURN_IF_ERROR(cudaEventCreate(&s.start), "creating an event");
      CUDA_RETURN_IF_ERROR(cudaEventCreate(&s.end), "creating an event");
    }
    RETURN_IF_ERROR(Calibrate());
    return clock_.Init();
  }

  std::string kind() const override { return "gpu"; }

  Status Submit(const Element& batch) override {
    // With max_in_flight steps queued, wait for the oldest, as a framework waiting on the
    // device before it can enqueue more work would.
    while (static_cast<int>(queued_.size()) >= max_in_flight_) RETURN_IF_ERROR(RetireOldest(true));
    while (!queued_.empty() && RetireOldest(false).ok()) {  // retire what has finished
    }
    const int other = 1 - clock_.current();
    RETURN_IF_ERROR(clock_.MaybeReanchor(std::any_of(
        queued_.begin(), queued_.end(), [&](const Slot* q) { return q->anchor == other; })));
    Slot& slot = slots_[next_slot_];
    next_slot_ = (next_slot_ + 1) % slots_.size();
    const size_t bytes = BatchBytes(batch);
    if (bytes > slot.capacity) {
      if (slot.pinned) cudaFreeHost(slot.pinned);
      if (slot.device_input) cudaFree(slot.device_input);
      slot.pinned = slot.device_input = nullptr;
      slot.capacity = 0;
      CUDA_RETURN_IF_ERROR(cudaHostAlloc(&slot.pinned, bytes, cudaHostAllocDefault),
                           "allocating " + std::to_string(bytes) + " bytes of pinned memory");
      CUDA_RETURN_IF_ERROR(cudaMalloc(&slot.device_input, bytes),
                           "allocating " + std::to_string(bytes) + " bytes on the GPU");
      slot.capacity = bytes;
    }
    CopyBatch(batch, static_cast<std::byte*>(slot.pinned));
    slot.element = batch.id;
    slot.anchor = clock_.current();
    CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.start, stream_), "recording an event");
    if (bytes > 0) {
      CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(slot.device_input, slot.pinned, bytes, cudaMemcpyHostToDevice, stream_),
          "copying the batch to the GPU");
    }
    CUDA_RETURN_IF_ERROR(cuda::LaunchStepKernel(values_, count_, iterations_, stream_),
                         "launching the step kernel");
    CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.end, stream_), "recording an event");
    queued_.push_back(&slot);
    return Status::Ok();
  }

  void Drain() override {
    while (!queued_.empty()) {
      if (!RetireOldest(true).ok()) break;
    }
  }

  int64_t BusyNs(int64_t) const override { return busy_ns_; }

 private:
  // Every payload byte travels to the device, string payloads (raw records, encoded
  // images) included: a step over undecoded bytes still has to copy them.
  static size_t BatchBytes(const Element& e) {
    size_t n = e.value.valid() ? e.value.byte_size() : 0;
    for (const auto& f : e.features) {
      if (f.value.valid()) n += f.value.byte_size();
    }
    return n;
  }
  static void CopyBatch(const Element& e, std::byte* out) {
    auto copy = [&](const Tensor& t) {
      if (!t.valid()) return;
      if (t.dtype() == DType::kString) {
        for (const std::string& s : t.strings()) {
          std::memcpy(out, s.data(), s.size());
          out += s.size();
        }
        return;
      }
      std::memcpy(out, t.raw(), t.byte_size());
      out += t.byte_size();
    };
    copy(e.value);
    for (const auto& f : e.features) copy(f.value);
  }

  // Times `iterations` of the kernel on the stream.
  Result<double> TimeKernelNs(long long iterations) {
    cudaEvent_t a = slots_[0].start, b = slots_[0].end;
    CUDA_RETURN_IF_ERROR(cudaEventRecord(a, stream_), "recording an event");
    CUDA_RETURN_IF_ERROR(cuda::LaunchStepKernel(values_, count_, iterations, stream_),
                         "launching the calibration kernel");
    CUDA_RETURN_IF_ERROR(cudaEventRecord(b, stream_), "recording an event");
    CUDA_RETURN_IF_ERROR(cudaEventSynchronize(b), "waiting for the calibration kernel");
    float ms = 0;
    CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, a, b), "timing the calibration kernel");
    return static_cast<double>(ms) * 1e6;
  }

  // Finds the iteration count that makes one launch last step_time: a warm-up, a first
  // estimate from a short launch, then one correction at about the target length.
  Status Calibrate() {
    if (step_time_ns_ <= 0) {
      iterations_ = 1;
      return Status::Ok();
    }
    ASSIGN_OR_RETURN(double warm, TimeKernelNs(1024));
    (void)warm;
    long long iterations = 1 << 14;
    ASSIGN_OR_RETURN(double ns, TimeKernelNs(iterations));
    for (int round = 0; round < 3; ++round) {
      const double per_iteration = std::max(ns, 1.0) / static_cast<double>(iterations);
      iterations = std::clamp<long long>(
          static_cast<long long>(static_cast<double>(step_time_ns_) / per_iteration), 1, 1LL << 40);
      ASSIGN_OR_RETURN(ns, TimeKernelNs(iterations));
      if (std::abs(ns - static_cast<double>(step_time_ns_)) <
          0.02 * static_cast<double>(step_time_ns_))
        break;
    }
    iterations_ = iterations;
    return Status::Ok();
  }

  // Retires the oldest queued step once it has finished (waiting for it when `wait`):
  // records its span and adds its time to the busy total.
  Status RetireOldest(bool wait) {
    if (queued_.empty()) return Status::Ok();
    Slot& slot = *queued_.front();
    for (;;) {
      const cudaError_t e = cudaEventQuery(slot.end);
      if (e == cudaSuccess) break;
      if (e != cudaErrorNotReady) return CudaError(e, "waiting for a step");
      if (!wait) return Status(StatusCode::kOutOfRange, "not finished");
      if (cancellation_.cancelled()) return Cancelled("run stopped");
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    ASSIGN_OR_RETURN(const int64_t start, clock_.HostNs(slot.anchor, slot.start));
    ASSIGN_OR_RETURN(const int64_t end, clock_.HostNs(slot.anchor, slot.end));
    busy_ns_ += std::max<int64_t>(0, end - start);
    if (recorder_) {
      recorder_->Record(record::Event{
          static_cast<uint64_t>(start), static_cast<uint64_t>(std::max(start, end)), slot.element,
          0, record::kDeviceOp, record::EventKind::kStep, record::kFlagTimesInNs});
    }
    queued_.pop_front();
    return Status::Ok();
  }

  const int64_t step_time_ns_;
  const int max_in_flight_;
  CancellationToken& cancellation_;
  cudaStream_t stream_ = nullptr;
  float* values_ = nullptr;
  int count_ = 0;
  long long iterations_ = 1;
  std::vector<Slot> slots_;
  size_t next_slot_ = 0;
  std::deque<Slot*> queued_;
  CudaEventClock clock_;
  int64_t busy_ns_ = 0;
};

}  // namespace

Result<std::unique_ptr<DeviceStep>> MakeGpuDevice(int64_t step_time_ns, int max_in_flight,
                                                  CancellationToken& cancellation) {
  auto device = std::make_unique<CudaDevice>(step_time_ns, max_in_flight, cancellation);
  RETURN_IF_ERROR(device->Init());
  return std::unique_ptr<DeviceStep>(std::move(device));
}

}  // namespace pipescope::engine
