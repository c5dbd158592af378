#include "instrumentation/record/recorder.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <utility>

namespace pipescope::record {

// A thread as one recorder knows it.
struct Recorder::ThreadState {
  uint32_t id = 0;
  std::string name;
  EventRing ring;
  std::atomic<bool> exited{false};
  clockid_t cpu_clock{};
  bool has_cpu_clock = false;
  int64_t last_cpu_ns = 0;
  uint32_t next_event_calls = 0;  // the collector's: set by a kRunCalls event (call_runs.h)
};

namespace {

std::atomic<uint64_t> g_next_recorder_serial{1};
std::atomic<uint64_t> g_next_thread_number{1};

// What each thread keeps besides the hot path's cache: its name, and the states it must
// mark as exited when it ends (so the collector can free their rings).
struct ThreadLocalSlot {
  std::string name;
  std::vector<std::weak_ptr<std::atomic<bool>>> exit_flags;
  ~ThreadLocalSlot() {
    // A run still open goes to the ring it was folded for (the latest registration's),
    // before the thread is marked as exited. The cache is trivially destructible: it is
    // still readable here.
    internal::ThreadRingCache& cache = internal::tls_ring_cache;
    if (cache.run.open() && !exit_flags.empty()) {
      if (auto alive = exit_flags.back().lock()) {
        cache.run.Close(Ticks(), [&](const Event& e) { cache.ring->Push(e); });
      }
    }
    for (auto& weak : exit_flags) {
      if (auto flag = weak.lock()) flag->store(true, std::memory_order_release);
    }
  }
};
thread_local ThreadLocalSlot tls_slot;

int64_t UnixNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t ThreadCpuNs(clockid_t clock) {
  timespec ts;
  if (clock_gettime(clock, &ts) != 0) return -1;
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

void SetThreadName(std::string name) {
  // The system's name too (its first 15 bytes), so that top, perf and gdb show it.
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
  tls_slot.name = std::move(name);
}

Recorder::Recorder(Options options)
    : options_(options),
      calibration_(TickCalibration::Get()),
      serial_(g_next_recorder_serial.fetch_add(1)),
      run_limits_{calibration_.TicksFor(kRunCallNs), calibration_.TicksFor(kRunSpanNs),
                  calibration_.TicksFor(kRunTimedEveryNs)},
      level_interval_ticks_(calibration_.TicksFor(kLevelMinIntervalNs)) {
  origin_ns_ = NowNs();
  origin_unix_ns_ = UnixNowNs();
}

Recorder::~Recorder() { Stop(); }

void Recorder::AddSink(TraceSink* sink) { sinks_.push_back(sink); }
void Recorder::SetSampler(std::function<void(Recorder&)> sampler) {
  std::lock_guard lock(sampler_mu_);
  sampler_ = std::move(sampler);
}

void Recorder::Start() {
  if (started_) return;
  started_ = true;
  collector_ = std::thread([this] { CollectorLoop(); });
}

void Recorder::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (started_) {
    {
      std::lock_guard lock(stop_mu_);
      stopping_ = true;
    }
    stop_cv_.notify_all();
    collector_.join();
  }
  CollectOnce(/*final=*/true);
}

EventRing* Recorder::RegisterThisThread() {
  // The state lives in a shared_ptr whose `exited` flag the thread's slot can reach
  // through an aliasing weak_ptr, so a thread that ends marks its ring for removal.
  auto state = std::make_shared<ThreadState>();
  std::string name = tls_slot.name;
  state->has_cpu_clock = pthread_getcpuclockid(pthread_self(), &state->cpu_clock) == 0;
  if (state->has_cpu_clock) state->last_cpu_ns = ThreadCpuNs(state->cpu_clock);
  {
    std::lock_guard lock(mu_);
    state->id = next_thread_id_++;
    if (name.empty()) name = "thread " + std::to_string(g_next_thread_number.fetch_add(1));
    state->name = name;
    threads_.push_back(state);
    pending_.threads.push_back({state->id, name});
  }
  tls_slot.exit_flags.emplace_back(std::shared_ptr<std::atomic<bool>>(state, &state->exited));
  // Forget flags of states that are gone, so a long-lived thread's list stays short.
  std::erase_if(tls_slot.exit_flags, [](const auto& w) { return w.expired(); });
  // A run folded for another recorder is that recording's, which has ended.
  internal::tls_ring_cache = {serial_, &state->ring, SourceCallRun{}};
  return &state->ring;
}

uint64_t Recorder::EndBrokenSourceRun(uint16_t op, uint64_t element, uint8_t flags) {
  const uint64_t now = Ticks();
  return WithRun(*RingOfThisThread(), [&](SourceCallRun& run, auto&& push) {
    return run.EndBrokenUntimed(op, now, element, flags, push);
  });
}

void Recorder::DefineStage(const StageDef& stage) {
  std::lock_guard lock(mu_);
  pending_.stages.push_back(stage);
}

void Recorder::KnobChanged(KnobChangeDef change) {
  change.time_ns = RecordingNs(change.time_ns);
  std::lock_guard lock(mu_);
  pending_.knob_changes.push_back(std::move(change));
}

void Recorder::Mark(int64_t now_ns, std::string text) {
  std::lock_guard lock(mu_);
  pending_.markers.push_back({RecordingNs(now_ns), std::move(text)});
}

uint64_t Recorder::dropped() const {
  std::lock_guard lock(mu_);
  return DroppedLocked();
}

uint64_t Recorder::DroppedLocked() const {
  uint64_t total = dropped_retired_;
  for (const auto& t : threads_) total += t->ring.dropped();
  return total;
}

void Recorder::WakeCollector() {
  drain_now_.store(true, std::memory_order_relaxed);
  stop_cv_.notify_one();
}

void Recorder::CollectorLoop() {
  SetThreadName("collector");
  int64_t next_cpu_sample = NowNs();
  std::unique_lock lock(stop_mu_);
  while (!stopping_) {
    lock.unlock();
    const int64_t now = NowNs();
    {
      std::lock_guard sampler_lock(sampler_mu_);
      if (sampler_) sampler_(*this);
    }
    if (now >= next_cpu_sample) {
      SampleCpuTimes();
      next_cpu_sample = now + options_.cpu_sample_period_ns;
    }
    CollectOnce(/*final=*/false);
    lock.lock();
    stop_cv_.wait_for(lock, std::chrono::nanoseconds(options_.drain_period_ns), [&] {
      return stopping_ || drain_now_.exchange(false, std::memory_order_relaxed);
    });
  }
  lock.unlock();
  // For Stop's final drain: the counters as the recording ends (a level changed since the
  // last wake) and the CPU used since the last sample, up to 50 ms of each.
  {
    std::lock_guard sampler_lock(sampler_mu_);
    if (sampler_) sampler_(*this);
  }
  SampleCpuTimes();
}

void Recorder::SampleCpuTimes() {
  std::vector<std::shared_ptr<ThreadState>> threads;
  {
    std::lock_guard lock(mu_);
    threads = threads_;
  }
  for (auto& t : threads) {
    // A thread that has ended has no CPU clock any more (and its id may be reused).
    if (!t->has_cpu_clock || t->exited.load(std::memory_order_acquire)) continue;
    const int64_t cpu = ThreadCpuNs(t->cpu_clock);
    if (cpu < 0) continue;
    const uint64_t now = Ticks();
    const int64_t used = std::max<int64_t>(0, cpu - t->last_cpu_ns);
    t->last_cpu_ns = cpu;
    // Recorded into the collector's own ring, tagged with the sampled thread's id.
    Record(Event{now, now, t->id, SaturateU32(static_cast<uint64_t>(used)), kNoOp,
                 EventKind::kCpuTime, 0});
  }
}

void Recorder::CollectOnce(bool final) {
  // One batch object for the recorder's life: its event vector keeps its capacity, so a
  // steady recording neither reallocates nor faults in fresh pages on every drain.
  TraceBatch& batch = batch_;
  batch.events.clear();
  levels_.clear();
  std::vector<std::shared_ptr<ThreadState>> threads;
  {
    std::lock_guard lock(mu_);
    batch.stages = std::move(pending_.stages);
    batch.threads = std::move(pending_.threads);
    batch.knob_changes = std::move(pending_.knob_changes);
    batch.markers = std::move(pending_.markers);
    pending_ = TraceBatch{};
    threads = threads_;
  }
  const int64_t origin = origin_ns_;
  const TickCalibration& clock = calibration_;
  std::vector<uint32_t> finished;
  for (auto& t : threads) {
    // Read the exit flag before draining: everything the thread pushed before it ended is
    // then in this drain.
    const bool exited = t->exited.load(std::memory_order_acquire);
    t->ring.Drain([&](const Event& e) {
      // A run's size comes just before it (call_runs.h); it holds for the next event only,
      // so a run whose event was dropped cannot lend its size to a later one.
      const uint32_t calls = std::exchange(t->next_event_calls, 0);
      if (e.kind == EventKind::kRunCalls) {
        t->next_event_calls = e.value;
        return;
      }
      TraceEvent out;
      if (e.flags & kFlagTimesInNs) {
        out.start_ns = static_cast<int64_t>(e.start) - origin;
        out.end_ns = static_cast<int64_t>(e.end) - origin;
      } else {
        out.start_ns = clock.ToNs(e.start) - origin;
        out.end_ns = clock.ToNs(e.end) - origin;
      }
      out.element = e.element;
      const bool self_in_ticks = e.kind == EventKind::kCall || e.kind == EventKind::kCallEnd;
      out.value = self_in_ticks ? static_cast<uint64_t>(std::max<int64_t>(
                                      0, clock.DurationNs(DecodeSelf(e.value, e.flags))))
                                : e.value;
      // CPU samples carry the sampled thread in `element`; everything else is its own.
      out.thread = e.kind == EventKind::kCpuTime ? static_cast<uint32_t>(e.element) : t->id;
      if (e.kind == EventKind::kCpuTime) out.element = 0;
      out.op = e.op;
      out.kind = e.kind;
      out.flags = static_cast<uint8_t>(e.flags & ~(kFlagTimesInNs | kFlagSelfScaled));
      if (e.kind == EventKind::kCall && calls > 1) out.calls = calls;
      (e.kind == EventKind::kBufferLevel ? levels_ : batch.events).push_back(out);
    });
    if (exited) {
      finished.push_back(t->id);
    } else {
      t->ring.PopulateAhead();
    }
  }
  std::stable_sort(levels_.begin(), levels_.end(), [](const TraceEvent& a, const TraceEvent& b) {
    return a.start_ns < b.start_ns;
  });
  batch.events.insert(batch.events.end(), levels_.begin(), levels_.end());
  {
    std::lock_guard lock(mu_);
    if (!finished.empty()) {
      std::erase_if(threads_, [&](const auto& t) {
        if (std::find(finished.begin(), finished.end(), t->id) == finished.end()) return false;
        dropped_retired_ += t->ring.dropped();
        return true;
      });
    }
    batch.dropped_total = DroppedLocked();
  }
  batch.time_ns = NowNs() - origin;
  if (batch.empty() && !final) return;
  for (TraceSink* sink : sinks_) sink->Consume(batch, final);
}

}  // namespace pipescope::record
