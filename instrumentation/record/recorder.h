#pragma once
// Records what a running pipeline does. Threads append events to their own ring (the hot
// path: no allocation after a thread's first event, no lock, no syscall); a collector
// thread drains all rings every 50 ms (sooner when one fills), turns ticks into nanoseconds
// and hands batches to the sinks. As it wakes it also runs the sampler (counters that
// changed) and samples each thread's CPU time (sample_periods.h).
//
// Lifetime: create, AddSink, Start, run the pipeline, Stop (drains everything and gives the
// sinks their final batch). Threads may outlive the recorder; their slot just goes stale.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "instrumentation/record/call_runs.h"
#include "instrumentation/record/clock.h"
#include "instrumentation/record/event_ring.h"
#include "instrumentation/record/sample_periods.h"
#include "instrumentation/record/trace_sink.h"

namespace pipescope::record {

// Names the calling thread in every trace it records into from now on ("decode/0").
void SetThreadName(std::string name);

namespace internal {
// The hot path's view of the calling thread: which recorder its ring belongs to, and the
// run of a source's calls it is folding (call_runs.h). Trivially destructible and constant
// initialised, so reading it is an fs-relative load with no TLS wrapper call.
struct ThreadRingCache {
  uint64_t recorder_serial = 0;
  EventRing* ring = nullptr;
  SourceCallRun run;
};
inline thread_local ThreadRingCache tls_ring_cache;
}  // namespace internal

class Recorder {
 public:
  struct Options {
    int64_t drain_period_ns = kCollectorPeriodNs;  // the sampler runs at every drain
    int64_t cpu_sample_period_ns = kCpuSamplePeriodNs;
  };

  Recorder() : Recorder(Options{}) {}
  explicit Recorder(Options options);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  void AddSink(TraceSink* sink);  // before Start
  // Called on the collector thread at every drain, to record counters. Thread-safe:
  // after SetSampler(nullptr) returns, the old sampler is not running and never runs again.
  void SetSampler(std::function<void(Recorder&)> sampler);
  void Start();
  void Stop();  // idempotent

  // ---- hot path (any thread)
  void Record(const Event& e) {
    EventRing* ring = RingOfThisThread();
    // A run of a source's calls ends before anything else the thread records.
    if (internal::tls_ring_cache.run.open()) [[unlikely]]
      CloseSourceRun(*ring);
    if (ring->Push(e)) [[unlikely]]
      WakeCollector();
  }
  void RecordSpan(EventKind kind, uint16_t op, uint64_t start, uint64_t end, uint64_t element = 0,
                  uint32_t value = 0, uint8_t flags = 0) {
    Record(Event{start, end, element, value, op, kind, flags});
  }
  void RecordCounter(EventKind kind, uint16_t op, uint32_t value) {
    RecordCounterAt(kind, op, value, Ticks());
  }
  void RecordCounterAt(EventKind kind, uint16_t op, uint32_t value, uint64_t ticks) {
    Record(Event{ticks, ticks, 0, value, op, kind, 0});
  }
  // Ticks in kLevelMinIntervalNs: how far apart an op's recorded buffer levels are at least.
  uint64_t level_interval_ticks() const { return level_interval_ticks_; }

  // ---- a source's calls (hot path, call_runs.h): runs of cheap calls are one event, and
  // most of their calls read no clock. `owner` tells one iterator's calls from another's.
  // Before a call: whether it may skip the clock (then report it with EndUntimedSourceCall,
  // else time it and report it with RecordSourceCall).
  bool SourceCallUntimed(const void* owner) const {
    const internal::ThreadRingCache& cache = internal::tls_ring_cache;
    return cache.recorder_serial == serial_ && cache.run.NextUntimed(owner);
  }
  // After an untimed call: `element` (flags 0) or the end or an error (flags). Returns the
  // ticks to count as the call's own time.
  uint64_t EndUntimedSourceCall(uint16_t op, uint64_t element, uint8_t flags) {
    uint64_t self = 0;
    if (flags == 0 && internal::tls_ring_cache.run.CountUntimed(element, self)) [[likely]]
      return self;
    return EndBrokenSourceRun(op, element, flags);
  }
  // A timed call of a source. Returns its own ticks (all of it: a source has no input).
  uint64_t RecordSourceCall(const void* owner, uint16_t op, uint64_t start, uint64_t end,
                            uint64_t element, uint8_t flags) {
    return WithRun(*RingOfThisThread(), [&](SourceCallRun& run, auto&& push) {
      return run.Timed(run_limits_, owner, op, start, end, element, flags, push);
    });
  }

  // ---- metadata (any thread; rare, takes a lock)
  void DefineStage(const StageDef& stage);
  void KnobChanged(KnobChangeDef change);  // change.time_ns: NowNs() clock
  void Mark(int64_t now_ns, std::string text);

  // Recording time of a NowNs() reading / of ticks.
  int64_t RecordingNs(int64_t now_ns) const { return now_ns - origin_ns_; }
  int64_t origin_ns() const { return origin_ns_; }
  int64_t origin_unix_ns() const { return origin_unix_ns_; }
  const TickCalibration& calibration() const { return calibration_; }
  uint64_t dropped() const;

 private:
  struct ThreadState;
  EventRing* RingOfThisThread() {
    const internal::ThreadRingCache& cache = internal::tls_ring_cache;
    if (cache.recorder_serial == serial_) [[likely]] {
      return cache.ring;
    }
    return RegisterThisThread();
  }
  EventRing* RegisterThisThread();
  // Calls fn(run, push) on this thread's run, `push` appending to `ring`; wakes the
  // collector when the ring filled past its mark. Returns what fn returns.
  template <typename Fn>
  uint64_t WithRun(EventRing& ring, Fn&& fn) {
    bool urgent = false;
    const uint64_t result =
        fn(internal::tls_ring_cache.run, [&](const Event& e) { urgent |= ring.Push(e); });
    if (urgent) [[unlikely]]
      WakeCollector();
    return result;
  }
  void CloseSourceRun(EventRing& ring) {
    WithRun(ring, [](SourceCallRun& run, auto&& push) {
      // A run that ends with a timed call (a source called once per call of its caller)
      // ends where that call did: no clock read.
      return run.Close(run.has_untimed_tail() ? Ticks() : 0, push);
    });
  }
  uint64_t EndBrokenSourceRun(uint16_t op, uint64_t element, uint8_t flags);
  void CollectorLoop();
  void WakeCollector();
  // Drains every ring and pending metadata into one batch and hands it to the sinks.
  void CollectOnce(bool final);
  void SampleCpuTimes();
  uint64_t DroppedLocked() const;  // needs mu_

  const Options options_;
  const TickCalibration& calibration_;
  const uint64_t serial_;  // tells this recorder's thread slots from a destroyed one's
  const RunLimits run_limits_;
  const uint64_t level_interval_ticks_;
  int64_t origin_ns_ = 0;
  int64_t origin_unix_ns_ = 0;

  mutable std::mutex mu_;  // guards everything below
  std::vector<std::shared_ptr<ThreadState>> threads_;
  uint32_t next_thread_id_ = 1;
  TraceBatch pending_;  // metadata waiting for the next drain
  TraceBatch batch_;    // the collector's: reused by every drain
  // Buffer levels come from every thread's ring: put in time order before they join the
  // batch, since a level track is one series whatever thread recorded it.
  std::vector<TraceEvent> levels_;
  uint64_t dropped_retired_ = 0;  // drops of rings already removed

  std::vector<TraceSink*> sinks_;
  std::mutex sampler_mu_;
  std::function<void(Recorder&)> sampler_;  // guarded by sampler_mu_
  std::thread collector_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::atomic<bool> drain_now_{false};
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace pipescope::record
