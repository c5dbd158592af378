// Dataset.map(fn, num_parallel_calls, deterministic).
//
// Sequential (no num_parallel_calls): fn runs on the caller's thread.
// Parallel: up to `parallelism` workers each take the next input element (input order is
// kept by fetching under input_mu_ and appending the result slot in the same critical
// section), run fn, and mark the slot done. At most `parallelism` calls run at once;
// finished results wait in a bounded buffer (see Capacity). Workers take several
// elements at a time when fn is fast and one when it is slow (BatchSizeLocked), and the
// consumer takes every ready result in one acquisition of the lock. Deterministic: the consumer
// takes slots in input order; otherwise the first finished one. Parallelism is live: workers with
// index ≥ parallelism park after their current element, and new ones start when it grows, so a
// change takes effect within one element's time and no element is lost.
#include <deque>

#include "engine/ops/ops.h"
#include "engine/runtime/async_iterator.h"
#include "engine/runtime/parallel_map_capacity.h"
#include "engine/runtime/parallel_map_order.h"
#include "engine/runtime/spin_wait.h"
#include "engine/work/python_work.h"

namespace pipescope::engine {
namespace {

int64_t LeadingRows(const Element& e) {
  const Tensor& t = LeadComponent(e);
  return t.shape().rank() > 0 ? t.shape().dim(0) : 1;
}

}  // namespace

Status ApplyMapFunction(const WorkFunction& fn, Element& e, bool batched_input,
                        CancellationToken& cancellation, const std::string& op) {
  Status s =
      batched_input ? fn.ApplyBatched(e, LeadingRows(e), cancellation) : fn.Apply(e, cancellation);
  if (s.ok() || s.code() == StatusCode::kCancelled) return s;
  return s.WithContext("map '" + op + "' (" + fn.name() + ") on element " + std::to_string(e.id));
}

namespace {

class MapDataset : public UnaryDataset {
 public:
  MapDataset(StatsPtr stats, DatasetPtr input, std::shared_ptr<const WorkFunction> fn,
             bool batched_input, TunablePtr parallelism, bool deterministic)
      : UnaryDataset(std::move(stats), std::move(input)),
        fn_(std::move(fn)),
        batched_input_(batched_input),
        parallelism_(std::move(parallelism)),
        deterministic_(deterministic) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    if (parallelism_) return MakeIteratorOver<ParallelIt>(*this, args);
    return MakeIteratorOver<SequentialIt>(*this, args);
  }

  Status Apply(Element& e, CancellationToken& cancellation, const std::string& op) const {
    return ApplyMapFunction(*fn_, e, batched_input_, cancellation, op);
  }

 private:
  class SequentialIt : public UnaryIterator {
   public:
    SequentialIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
                 const MapDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      RETURN_IF_ERROR(Pull(out, end));
      if (end) return Status::Ok();
      const LockWaitsRecordedAs lock_waits(ctx_.recorder, stats_->id);
      return d_.Apply(out, ctx_.cancellation, stats_->name);
    }

   private:
    const MapDataset& d_;
  };

  class ParallelIt : public AsyncIterator {
   public:
    ParallelIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
               const MapDataset& d)
        : AsyncIterator(ctx, stats, std::move(in)),
          d_(d),
          subscription_(d.parallelism_.get(), [this] { OnParallelismChanged(); }) {}

    ~ParallelIt() override { StopAndJoin(); }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (local_next_ == local_.size()) {
        RETURN_IF_ERROR(Refill());
        if (local_.empty()) {
          end = true;
          return Status::Ok();
        }
      }
      Slot* slot = local_[local_next_++];
      const auto held = static_cast<int64_t>(local_.size() - local_next_);
      consumer_held_.store(held, std::memory_order_relaxed);
      // Halfway through a batch, wake workers that stopped for lack of room, so they
      // refill while the rest is consumed instead of after.
      if (held == static_cast<int64_t>(local_.size() / 2) &&
          workers_waiting_.load(std::memory_order_relaxed) > 0) {
        std::lock_guard lock(mu_);
        worker_cv_.notify_all();
      }
      out = std::move(slot->element);
      Status status = std::move(slot->status);
      slot->status = Status::Ok();
      return status;
    }

   private:
    struct Slot {
      Element element;
      Status status;
      bool done = false;
    };

    int64_t parallelism() const { return d_.parallelism_->value(); }
    // Results in flight plus results not yet returned to the caller.
    int64_t Capacity() const {
      return ParallelMapCapacity(parallelism(),
                                 static_cast<double>(fn_ema_ns_.load(std::memory_order_relaxed)));
    }
    int64_t OccupiedLocked() const {
      return static_cast<int64_t>(slots_.size()) + fetching_ +
             consumer_held_.load(std::memory_order_relaxed);
    }

    // The room a worker stopped by a full buffer waits for: a group's worth.
    int64_t ResumeRoomLocked() const {
      return ParallelMapResumeRoom(static_cast<double>(fn_ema_ns_.load(std::memory_order_relaxed)),
                                   Capacity(), parallelism());
    }

    // Elements a worker takes at once: one when the function is slow (no added latency),
    // up to 32 when it is so fast that locking per element would dominate.
    int64_t BatchSizeLocked() const {
      return ParallelMapGroupSize(static_cast<double>(fn_ema_ns_.load(std::memory_order_relaxed)),
                                  Capacity(), OccupiedLocked(), parallelism());
    }

    // Takes every result the caller may have now (the leading finished ones, or with
    // deterministic: false all finished ones) in one acquisition of the lock.
    Status Refill() {
      std::unique_lock lock(mu_);
      for (Slot* slot : local_) free_.push_back(slot);
      local_.clear();
      local_next_ = 0;
      consumer_held_.store(0, std::memory_order_relaxed);
      if (!started_) {
        started_ = true;
        GrowWorkersLocked();
      }
      while (true) {
        if (cancelled_) return Cancelled();
        TakeReadyLocked();
        if (!local_.empty() || (slots_.empty() && input_end_ && fetching_ == 0)) break;
        // Nothing ready: spin briefly without the lock, then sleep until a worker signals.
        const uint64_t seen = completions_.load(std::memory_order_acquire);
        lock.unlock();
        const bool changed = refill_spin_.SpinUntil(
            [&] { return completions_.load(std::memory_order_acquire) != seen; });
        lock.lock();
        if (changed) continue;
        if (completions_.load(std::memory_order_relaxed) == seen) {
          // Before sleeping, let sleeping workers re-check: the capacity may have shrunk
          // (parallelism lowered, fn found slow) while this consumer held a larger batch,
          // and nothing else would wake them now that the batch is returned.
          if (workers_waiting_.load(std::memory_order_relaxed) > 0) worker_cv_.notify_all();
          consumer_waiting_ = true;
          consumer_cv_.wait(lock, [&] {
            return cancelled_ || completions_.load(std::memory_order_relaxed) != seen;
          });
          consumer_waiting_ = false;
        }
        refill_spin_.WaitEnded();
      }
      consumer_held_.store(static_cast<int64_t>(local_.size()), std::memory_order_relaxed);
      SetBufferLevel(OccupiedLocked() - fetching_);
      const bool wake = workers_waiting_.load(std::memory_order_relaxed) > 0;
      lock.unlock();
      if (wake) worker_cv_.notify_all();
      return Status::Ok();
    }

    void TakeReadyLocked() {
      for (auto it = slots_.begin(); it != slots_.end();) {
        const HandOut step = HandOutInFlight((*it)->done, d_.deterministic_);
        if (step == HandOut::kStop) break;
        if (step == HandOut::kSkip) {
          ++it;
          continue;
        }
        local_.push_back(*it);
        it = slots_.erase(it);
      }
    }

    Slot* AcquireSlotLocked() {
      if (free_.empty()) {
        owned_.push_back(std::make_unique<Slot>());
        return owned_.back().get();
      }
      Slot* slot = free_.back();
      free_.pop_back();
      return slot;
    }

    void GrowWorkersLocked() {
      workers_.Grow(static_cast<int>(parallelism()), stats_->name,
                    [this](int i) { WorkerLoop(i); });
    }

    void OnParallelismChanged() {
      {
        std::lock_guard lock(mu_);
        if (started_ && !cancelled_) GrowWorkersLocked();
      }
      worker_cv_.notify_all();
    }

    // Reserves room for a batch; 0 when cancelled.
    int64_t ReserveLocked(std::unique_lock<std::mutex>& lock, int index) {
      auto can_work = [&] {
        return cancelled_ || (index < parallelism() && !input_end_ &&
                              Capacity() - OccupiedLocked() >= ResumeRoomLocked());
      };
      if (!can_work()) {
        // A worker beyond the current parallelism is idle; one that is wanted but finds
        // the buffer full is blocked on output.
        const auto kind =
            index < parallelism() ? record::EventKind::kBlocked : record::EventKind::kIdle;
        const uint64_t wait_start = TicksIfRecording();
        workers_waiting_.fetch_add(1, std::memory_order_relaxed);
        worker_cv_.wait(lock, can_work);
        workers_waiting_.fetch_sub(1, std::memory_order_relaxed);
        if (!input_end_ && !cancelled_) RecordSpan(kind, wait_start, TicksIfRecording());
      }
      if (cancelled_) return 0;
      const int64_t k = BatchSizeLocked();
      fetching_ += k;
      return k;
    }

    void WorkerLoop(int index) {
      const LockWaitsRecordedAs lock_waits(ctx_.recorder, stats_->id);
      std::vector<Element> fetched;
      std::vector<Slot*> batch;
      while (true) {
        int64_t k;
        {
          std::unique_lock lock(mu_);
          k = ReserveLocked(lock, index);
          if (k == 0) return;
        }
        fetched.clear();
        batch.clear();
        Status input_error;
        bool input_end = false;
        bool input_stopped = false;
        const uint64_t fetch_start = TicksIfRecording();
        {
          // Fetch and append under input_mu_, so slots are in input order.
          std::lock_guard input_lock(input_mu_);
          while (static_cast<int64_t>(fetched.size()) < k) {
            Element element;
            input_error = input_->GetNext(element, input_end);
            if (!input_error.ok() || input_end) break;
            fetched.push_back(std::move(element));
          }
          std::lock_guard lock(mu_);
          fetching_ -= k;
          for (auto& element : fetched) {
            Slot* slot = AcquireSlotLocked();
            slot->element = std::move(element);
            slot->done = false;
            slots_.push_back(slot);
            batch.push_back(slot);
          }
          if (!input_error.ok()) {  // delivered in order, after the elements before it
            Slot* slot = AcquireSlotLocked();
            slot->status = std::move(input_error);
            slot->done = true;
            slots_.push_back(slot);
            input_end_ = true;
          }
          if (input_end) input_end_ = true;
          input_stopped = input_end_;
        }
        RecordSpan(record::EventKind::kWaitInput, fetch_start, TicksIfRecording());
        if (input_stopped) worker_cv_.notify_all();  // the others stop waiting for input
        ApplyBatch(batch);
        bool wake_consumer;
        {
          std::lock_guard lock(mu_);
          for (Slot* slot : batch) slot->done = true;
          completions_.fetch_add(1, std::memory_order_release);
          wake_consumer = consumer_waiting_;
        }
        if (wake_consumer) consumer_cv_.notify_one();
      }
    }

    // Runs fn on the batch; slots stay in slots_ until done, so the pointers are valid
    // while fn runs without the lock.
    void ApplyBatch(const std::vector<Slot*>& batch) {
      if (batch.empty()) return;
      const int64_t t0 = record::NowNs();
      if (ctx_.recorder) {
        // One kWork span per element; each span ends where the next begins.
        uint64_t start = record::Ticks();
        for (Slot* slot : batch) {
          const uint64_t id = slot->element.id;
          slot->status = d_.Apply(slot->element, ctx_.cancellation, stats_->name);
          const uint64_t end = record::Ticks();
          RecordSpan(record::EventKind::kWork, start, end, id);
          start = end;
        }
      } else {
        for (Slot* slot : batch)
          slot->status = d_.Apply(slot->element, ctx_.cancellation, stats_->name);
      }
      const int64_t ns = record::NowNs() - t0;
      const int64_t per_element = ns / static_cast<int64_t>(batch.size());
      fn_ema_ns_.store((fn_ema_ns_.load(std::memory_order_relaxed) * 3 + per_element) / 4,
                       std::memory_order_relaxed);
    }

    const MapDataset& d_;
    std::mutex input_mu_;  // one fetch from input_ at a time; taken before mu_
    // Guarded by mu_:
    std::deque<Slot*> slots_;  // in input order
    std::vector<Slot*> free_;  // recycled slots: a steady run allocates nothing
    std::vector<std::unique_ptr<Slot>> owned_;
    int64_t fetching_ = 0;  // reserved by workers, not yet in slots_
    bool consumer_waiting_ = false;
    bool input_end_ = false;
    bool started_ = false;
    std::atomic<uint64_t> completions_{0};  // bumped whenever the consumer may proceed
    std::atomic<int> workers_waiting_{0};
    std::atomic<int64_t> fn_ema_ns_{1'000'000};  // assume slow until measured
    // Consumer side: results taken in one Refill, returned to free_ at the next.
    std::vector<Slot*> local_;
    size_t local_next_ = 0;
    AdaptiveSpin refill_spin_;
    alignas(64) std::atomic<int64_t> consumer_held_{0};
    TunableSubscription subscription_;
  };

  std::shared_ptr<const WorkFunction> fn_;
  const bool batched_input_;
  TunablePtr parallelism_;
  const bool deterministic_;
};

}  // namespace

DatasetPtr MakeMapDataset(StatsPtr stats, DatasetPtr input, std::shared_ptr<const WorkFunction> fn,
                          bool batched_input, TunablePtr parallelism, bool deterministic) {
  if (parallelism) stats->asynchronous = true;
  return std::make_shared<MapDataset>(std::move(stats), std::move(input), std::move(fn),
                                      batched_input, std::move(parallelism), deterministic);
}

}  // namespace pipescope::engine
