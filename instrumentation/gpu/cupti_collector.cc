// CUPTI activity tracing (see gpu_tracing.h): CUPTI fills buffers we hand it with
// activity records and gives them back, full or flushed, on a thread of its own; each
// record becomes one trace event of the device in host time.
#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "instrumentation/gpu/clock_tracker.h"
#include "instrumentation/gpu/cupti_clock_probe.h"
#include "instrumentation/gpu/gpu_tracing.h"
#include "instrumentation/record/clock.h"

namespace pipescope::gpu {
namespace {

constexpr size_t kBufferBytes = 4 << 20;
constexpr int kClockPairs = 32;
constexpr uint32_t kFlushPeriodMs = 100;  // a live view sees GPU activity within ~0.1 s

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                     CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};

std::string CuptiError(CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return text ? text : "CUPTI error " + std::to_string(static_cast<int>(r));
}

class CuptiTracing : public GpuTracing {
 public:
  explicit CuptiTracing(record::Recorder& recorder) : recorder_(recorder) {}

  bool Start(std::string* why_not) {
    std::vector<ClockPair> pairs;
    for (int i = 0; i < kClockPairs; ++i) {
      ClockPair p;
      p.host_before_ns = record::NowNs();
      if (CUptiResult r = cuptiGetTimestamp(&p.gpu_ns); r != CUPTI_SUCCESS) {
        *why_not = "reading CUPTI's clock: " + CuptiError(r);
        return false;
      }
      p.host_after_ns = record::NowNs();
      pairs.push_back(p);
    }
    {
      // Seeded before any record can arrive, so that none is converted without it.
      std::lock_guard<std::mutex> lock(clock_mu_);
      tracker_ = ClockTracker(FitClockAlignment(pairs));
    }
    if (CUptiResult r = cuptiActivityRegisterCallbacks(&BufferRequested, &BufferCompleted);
        r != CUPTI_SUCCESS) {
      *why_not = "registering CUPTI's buffer callbacks: " + CuptiError(r);
      return false;
    }
    for (CUpti_ActivityKind kind : kKinds) {
      if (CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS) {
        *why_not = "enabling CUPTI activity " + std::to_string(static_cast<int>(kind)) + ": " +
                   CuptiError(r);
        return false;
      }
    }
    cuptiActivityFlushPeriod(kFlushPeriodMs);
    // Without probes the start-up alignment stays, which CUPTI's own conversion may drift
    // away from on long runs; tracing goes on either way.
    std::string probe_note;
    if (probe_.Prepare(&probe_note)) {
      probe_.Start([this](int64_t before, int64_t after) {
        std::lock_guard<std::mutex> lock(clock_mu_);
        tracker_.ProbeIssued(before, after);
      });
    }
    return true;
  }

  void set_registered() { registered_ = true; }

  ~CuptiTracing() override {
    if (!registered_) return;
    probe_.Stop();
    Flush();
    for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
    cuptiActivityFlushPeriod(0);
    std::lock_guard<std::mutex> lock(active_mu_);
    active_ = nullptr;
  }

  void Flush() override { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }
  ClockAlignment clock() const override {
    std::lock_guard<std::mutex> lock(clock_mu_);
    return tracker_.current();
  }
  uint64_t records() const override { return records_.load(); }
  uint64_t clock_probes() const override {
    std::lock_guard<std::mutex> lock(clock_mu_);
    return tracker_.probes();
  }

  static std::mutex active_mu_;
  static CuptiTracing* active_;  // CUPTI's callbacks have no user pointer

 private:
  static void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
  }

  static void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    {
      std::lock_guard<std::mutex> lock(active_mu_);
      if (active_) active_->Convert(buffer, valid);
    }
    std::free(buffer);
  }

  void Convert(uint8_t* buffer, size_t valid) {
    std::lock_guard<std::mutex> lock(clock_mu_);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      DeviceActivity a;
      switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
          a = {ActivityKind::kKernel, k->start, k->end, 0, k->correlationId, k->streamId};
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
          if (m->streamId == probe_.stream_id()) {  // a clock probe, not the pipeline's
            tracker_.ProbeRecorded(m->start, m->end);
            continue;
          }
          a = {ActivityKind::kMemcpy, m->start, m->end, m->bytes, m->correlationId, m->streamId};
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
          a = {ActivityKind::kMemset, m->start, m->end, m->bytes, m->correlationId, m->streamId};
          break;
        }
        default:
          continue;
      }
      recorder_.Record(ToTraceEvent(a, tracker_.current()));
      records_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  record::Recorder& recorder_;
  mutable std::mutex clock_mu_;
  ClockTracker tracker_{ClockAlignment{}};  // the alignment records are converted with
  CuptiClockProbe probe_;
  std::atomic<uint64_t> records_{0};
  bool registered_ = false;  // this object is active_: undo on destruction
};

std::mutex CuptiTracing::active_mu_;
CuptiTracing* CuptiTracing::active_ = nullptr;

}  // namespace

std::unique_ptr<GpuTracing> StartGpuTracing(record::Recorder& recorder, std::string* why_not) {
  std::string reason;
  auto tracing = std::make_unique<CuptiTracing>(recorder);
  {
    std::lock_guard<std::mutex> lock(CuptiTracing::active_mu_);
    if (CuptiTracing::active_) {
      if (why_not) *why_not = "GPU activity tracing is already on in this process";
      return nullptr;  // never registered: its destructor does nothing
    }
    CuptiTracing::active_ = tracing.get();
  }
  tracing->set_registered();
  if (!tracing->Start(&reason)) {
    if (why_not) *why_not = reason;
    return nullptr;  // its destructor disables what Start enabled
  }
  return tracing;
}

}  // namespace pipescope::gpu
