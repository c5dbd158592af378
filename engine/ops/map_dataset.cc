// Dataset.map(fn, num_parallel_calls, deterministic).
//
// Sequential (no num_parallel_calls): fn runs on the caller's thread.
// Parallel: up to `parallelism` workers each take the next input element (input order is
// kept by fetching under input_mu_ and appending the result slot in the same critical
// section), run fn, and mark the slot done. At most `parallelism` calls run at once;
// finished results wait in a bounded buffer (see Capacity). Deterministic: the consumer takes
// slots in input order; otherwise the first finished one. Parallelism is live: workers
// with index ≥ parallelism park after their current element, and new ones start when it
// grows, so a change takes effect within one element's time and no element is lost.
#include <condition_variable>
#include <deque>
#include <mutex>

#include "engine/ops/ops.h"
#include "engine/runtime/spin_wait.h"
#include "engine/runtime/worker_threads.h"

namespace pipescope::engine {
namespace {

int64_t LeadingRows(const Element& e) {
  const Tensor& t = e.value.valid() || e.features.empty() ? e.value : e.features[0].value;
  return t.shape().rank() > 0 ? t.shape().dim(0) : 1;
}

class MapDataset : public Dataset {
 public:
  MapDataset(StatsPtr stats, DatasetPtr input, std::shared_ptr<const WorkFunction> fn,
             bool batched_input, TunablePtr parallelism, bool deterministic)
      : Dataset(std::move(stats)), input_(std::move(input)), fn_(std::move(fn)),
        batched_input_(batched_input), parallelism_(std::move(parallelism)),
        deterministic_(deterministic) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    if (parallelism_) return MakeUnaryIterator<ParallelIt>(*this, *input_, args);
    return MakeUnaryIterator<SequentialIt>(*this, *input_, args);
  }

  // Applies fn (or its batched form) and names the op and element in errors.
  Status Apply(Element& e, CancellationToken& cancellation, const std::string& op) const {
    Status s = batched_input_ ? fn_->ApplyBatched(e, LeadingRows(e), cancellation)
                              : fn_->Apply(e, cancellation);
    if (s.ok() || s.code() == StatusCode::kCancelled) return s;
    return s.WithContext("map '" + op + "' (" + fn_->name() + ") on element " + std::to_string(e.id));
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
      return d_.Apply(out, ctx_.cancellation, stats_->name);
    }

   private:
    const MapDataset& d_;
  };

  class ParallelIt : public Iterator {
   public:
    ParallelIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
               const MapDataset& d)
        : Iterator(ctx, stats), d_(d), input_(std::move(in)),
          subscription_(d.parallelism_.get(), [this] { OnParallelismChanged(); }) {}

    ~ParallelIt() override {
      Cancel();
      workers_.JoinAll();
    }

    void Cancel() override {
      {
        std::lock_guard lock(mu_);
        cancelled_ = true;
      }
      worker_cv_.notify_all();
      consumer_cv_.notify_all();
      input_->Cancel();
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      std::unique_lock lock(mu_);
      if (!started_) {
        started_ = true;
        GrowWorkersLocked();
      }
      Slot* ready = nullptr;
      while (true) {
        if (cancelled_) return Cancelled();
        ready = FindReadyLocked();
        if (ready != nullptr || (slots_.empty() && input_end_ && fetching_ == 0)) break;
        // Not ready: spin briefly without the lock, then sleep until a worker signals.
        const uint64_t seen = completions_.load(std::memory_order_acquire);
        lock.unlock();
        const bool changed = SpinUntilChanged(completions_, seen);
        lock.lock();
        if (changed || completions_.load(std::memory_order_relaxed) != seen) continue;
        consumer_waiting_ = true;
        consumer_cv_.wait(lock, [&] {
          return cancelled_ || completions_.load(std::memory_order_relaxed) != seen;
        });
        consumer_waiting_ = false;
      }
      if (ready == nullptr) {
        end = true;
        return Status::Ok();
      }
      out = std::move(ready->element);
      Status status = std::move(ready->status);
      EraseLocked(ready);
      // Hysteresis: sleeping workers are woken once half the buffer is free, so one
      // wake-up serves several elements instead of one.
      const bool wake = workers_waiting_ > 0 &&
                        static_cast<int64_t>(slots_.size()) + fetching_ <= Capacity() / 2;
      lock.unlock();
      if (wake) worker_cv_.notify_all();
      return status;
    }

   private:
    struct Slot {
      Element element;
      Status status;
      bool done = false;
    };

    int64_t parallelism() const { return d_.parallelism_->value(); }
    // Results in flight plus results waiting for the consumer. tf.data bounds this by
    // num_parallel_calls; a floor of 16 lets workers run ahead far enough that hand-offs
    // are batched (the difference is a few elements of memory).
    int64_t Capacity() const { return std::max<int64_t>(2 * parallelism(), 16); }

    Slot* FindReadyLocked() {
      if (slots_.empty()) return nullptr;
      if (d_.deterministic_) return slots_.front()->done ? slots_.front().get() : nullptr;
      for (auto& s : slots_) {
        if (s->done) return s.get();
      }
      return nullptr;
    }

    void EraseLocked(Slot* slot) {
      if (slots_.front().get() == slot) {
        slots_.pop_front();
      } else {
        for (auto it = slots_.begin(); it != slots_.end(); ++it) {
          if (it->get() == slot) {
            slots_.erase(it);
            break;
          }
        }
      }
      stats_->buffered.store(static_cast<int64_t>(slots_.size()), std::memory_order_relaxed);
    }

    void GrowWorkersLocked() {
      workers_.Grow(static_cast<int>(parallelism()), [this](int i) { WorkerLoop(i); });
    }

    void OnParallelismChanged() {
      {
        std::lock_guard lock(mu_);
        if (started_ && !cancelled_) GrowWorkersLocked();
      }
      worker_cv_.notify_all();
    }

    bool HasCapacityLocked() const {
      return static_cast<int64_t>(slots_.size()) + fetching_ < Capacity();
    }

    void SignalCompletionLocked() {
      completions_.fetch_add(1, std::memory_order_release);
    }

    void WorkerLoop(int index) {
      const bool timed = ctx_.collect_stats;
      while (true) {
        {
          std::unique_lock lock(mu_);
          auto can_work = [&] {
            return cancelled_ || (index < parallelism() && !input_end_ && HasCapacityLocked());
          };
          if (!can_work()) {
            const int64_t wait_start = timed ? record::NowNs() : 0;
            ++workers_waiting_;
            worker_cv_.wait(lock, can_work);
            --workers_waiting_;
            // Time spent waiting while this worker was wanted counts as blocked on output.
            if (timed && index < parallelism()) {
              stats_->Add(stats_->blocked_output_ns, record::NowNs() - wait_start);
            }
          }
          if (cancelled_) return;
          ++fetching_;
        }
        Slot* slot = nullptr;
        bool wake_consumer = false;
        {
          // Fetch and append under input_mu_, so slots are in input order.
          std::lock_guard input_lock(input_mu_);
          Element element;
          bool end = false;
          Status s = input_->GetNext(element, end);
          if (timed) stats_->Add(stats_->waiting_input_ns, input_->last_call_ns());
          std::lock_guard lock(mu_);
          --fetching_;
          if (s.ok() && end) {
            input_end_ = true;
            SignalCompletionLocked();
            wake_consumer = consumer_waiting_;
          } else {
            slots_.push_back(std::make_unique<Slot>());
            slot = slots_.back().get();
            slot->element = std::move(element);
            slot->status = std::move(s);
            stats_->buffered.store(static_cast<int64_t>(slots_.size()), std::memory_order_relaxed);
          }
        }
        if (slot == nullptr) {  // end of input: wake the consumer and the other workers
          if (wake_consumer) consumer_cv_.notify_all();
          worker_cv_.notify_all();
          continue;
        }
        // The slot stays in slots_ until the consumer takes it, which needs done == true,
        // so the pointer is valid while fn runs without the lock.
        Status result = std::move(slot->status);
        if (result.ok()) {
          const int64_t t0 = timed ? record::NowNs() : 0;
          result = d_.Apply(slot->element, ctx_.cancellation, stats_->name);
          if (timed) stats_->Add(stats_->busy_ns, record::NowNs() - t0);
        }
        {
          std::lock_guard lock(mu_);
          slot->status = std::move(result);
          slot->done = true;
          SignalCompletionLocked();
          wake_consumer = consumer_waiting_;
        }
        if (wake_consumer) consumer_cv_.notify_one();
      }
    }

    const MapDataset& d_;
    std::unique_ptr<Iterator> input_;
    std::mutex input_mu_;  // one fetch from input_ at a time; taken before mu_
    std::mutex mu_;
    std::condition_variable worker_cv_;
    std::condition_variable consumer_cv_;
    std::deque<std::unique_ptr<Slot>> slots_;  // in input order
    int64_t fetching_ = 0;  // workers between capacity check and slot append
    int workers_waiting_ = 0;
    bool consumer_waiting_ = false;
    std::atomic<uint64_t> completions_{0};  // bumped whenever the consumer may proceed
    bool input_end_ = false;
    bool cancelled_ = false;
    bool started_ = false;
    WorkerThreads workers_;
    TunableSubscription subscription_;
  };

  DatasetPtr input_;
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
