// Dataset.interleave(per_element, cycle_length, block_length, num_parallel_calls,
// deterministic): opens a sub-pipeline for up to cycle_length input elements at a time and
// takes block_length elements from each in turn (tf.data's order exactly).
//
// Synchronous (no num_parallel_calls): everything happens on the caller's thread.
// Parallel: `parallelism` workers read ahead from the open sub-pipelines (up to one block
// per slot, nearest to the consumer's position first), so slow storage is read
// concurrently; the output order is the synchronous one unless deterministic is false, in
// which case the consumer may take from any slot that has data instead of waiting.
//
// All three knobs are live. A smaller cycle_length stops opening slots beyond it but
// still drains those already open, so no element is lost.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "engine/ops/ops.h"
#include "engine/runtime/async_iterator.h"
#include "engine/runtime/interleave_rules.h"

namespace pipescope::engine {
namespace {

class InterleaveDataset : public UnaryDataset {
 public:
  InterleaveDataset(StatsPtr stats, DatasetPtr input, DatasetPtr per_element, TunablePtr cycle,
                    TunablePtr block, TunablePtr parallelism, bool deterministic)
      : UnaryDataset(std::move(stats), std::move(input)),
        per_element_(std::move(per_element)),
        cycle_(std::move(cycle)),
        block_(std::move(block)),
        parallelism_(std::move(parallelism)),
        deterministic_(deterministic) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    if (parallelism_) return MakeIteratorOver<ParallelIt>(*this, args);
    return MakeIteratorOver<SequentialIt>(*this, args);
  }

 private:
  int64_t cycle_length() const { return cycle_->value(); }
  int64_t block_length() const { return std::max<int64_t>(1, block_->value()); }

  // One open sub-pipeline. `parent` owns the input element the sub-pipeline reads, so it
  // must stay at a stable address: slots are held by unique_ptr.
  struct Slot {
    Element parent;
    std::unique_ptr<Iterator> iterator;
    // Parallel mode only:
    struct Entry {
      Element element;
      Status status;
    };
    std::deque<Entry> ready;
    bool end = false;   // the sub-pipeline reported its end (after `ready` drains)
    bool busy = false;  // a worker is fetching from it
  };

  // Slots visited: the knob's value, widened to reach any slot still open beyond it.
  static size_t EffectiveCycle(const std::vector<std::unique_ptr<Slot>>& slots, int64_t cycle) {
    size_t n = static_cast<size_t>(std::max<int64_t>(cycle, 1));
    for (size_t i = n; i < slots.size(); ++i) {
      if (slots[i]) n = i + 1;
    }
    return n;
  }

  Status OpenSlot(PipelineContext& ctx, Element parent, std::unique_ptr<Slot>& slot) const {
    auto s = std::make_unique<Slot>();
    s->parent = std::move(parent);
    auto it = per_element_->MakeIterator(IteratorArgs{&ctx, &s->parent});
    if (!it.ok()) {
      return it.status().WithContext("interleave '" + stats()->name + "' opening element " +
                                     std::to_string(s->parent.id));
    }
    s->iterator = std::move(it).value();
    slot = std::move(s);
    return Status::Ok();
  }

  class SequentialIt : public UnaryIterator {
   public:
    SequentialIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
                 const InterleaveDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d) {}

    void Cancel() override {
      std::lock_guard lock(mu_);
      UnaryIterator::Cancel();
      for (auto& s : slots_) {
        if (s) s->iterator->Cancel();
      }
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      while (true) {
        const size_t cycle = EffectiveCycle(slots_, d_.cycle_length());
        if (slots_.size() < cycle) {
          std::lock_guard lock(mu_);
          slots_.resize(cycle);
        }
        cursor_.Wrap(cycle);
        auto& slot = slots_[cursor_.slot()];
        if (slot) {
          bool sub_end = false;
          RETURN_IF_ERROR(GetNextFromInput(*slot->iterator, out, sub_end));
          if (!sub_end) {
            cursor_.Took(d_.block_length(), cycle);
            return Status::Ok();
          }
          std::unique_ptr<Slot> closed;
          {
            std::lock_guard lock(mu_);
            closed = std::move(slot);
          }
          --open_;
          cursor_.NextSlot(cycle);
        } else if (!input_end_ && cursor_.slot() < static_cast<size_t>(d_.cycle_length())) {
          Element parent;
          RETURN_IF_ERROR(Pull(parent, input_end_));
          if (!input_end_) {
            std::unique_ptr<Slot> opened;
            RETURN_IF_ERROR(d_.OpenSlot(ctx_, std::move(parent), opened));
            std::lock_guard lock(mu_);
            slot = std::move(opened);
            ++open_;
          }
        } else if (input_end_ && open_ == 0) {
          end = true;
          return Status::Ok();
        } else {
          cursor_.NextSlot(cycle);
        }
      }
    }

   private:
    const InterleaveDataset& d_;
    std::mutex mu_;  // guards slots_ against a concurrent Cancel
    std::vector<std::unique_ptr<Slot>> slots_;
    InterleaveCursor cursor_;
    int open_ = 0;
    bool input_end_ = false;
  };

  class ParallelIt : public AsyncIterator {
   public:
    ParallelIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
               const InterleaveDataset& d)
        : AsyncIterator(ctx, stats, std::move(in)),
          d_(d),
          parallelism_sub_(d.parallelism_.get(), [this] { OnKnobChanged(); }),
          cycle_sub_(d.cycle_.get(), [this] { OnKnobChanged(); }),
          block_sub_(d.block_.get(), [this] { OnKnobChanged(); }) {}

    ~ParallelIt() override { StopAndJoin(); }

    void Cancel() override {
      {
        std::lock_guard lock(mu_);
        for (auto& s : slots_) {
          if (s) s->iterator->Cancel();
        }
      }
      AsyncIterator::Cancel();
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      std::unique_lock lock(mu_);
      if (!started_) {
        started_ = true;
        GrowWorkersLocked();
      }
      while (true) {
        if (cancelled_) return Cancelled();
        const size_t cycle = EffectiveCycle(slots_, d_.cycle_length());
        if (slots_.size() < cycle) slots_.resize(cycle);
        cursor_.Wrap(cycle);
        auto& slot = slots_[cursor_.slot()];
        if (slot) {
          if (!slot->ready.empty()) return TakeLocked(*slot, out, cycle, true, lock);
          if (slot->end && !slot->busy) {
            std::unique_ptr<Slot> closed = std::move(slot);
            --open_;
            cursor_.NextSlot(cycle);
            lock.unlock();
            closed.reset();  // may join threads of the sub-pipeline: outside the lock
            lock.lock();
            worker_cv_.notify_all();
            continue;
          }
          if (!d_.deterministic_) {
            for (auto& other : slots_) {
              if (other && !other->ready.empty())
                return TakeLocked(*other, out, cycle, false, lock);
            }
          }
          consumer_cv_.wait(lock);
        } else if (!input_end_ && cursor_.slot() < static_cast<size_t>(d_.cycle_length())) {
          // Opening pulls from the input on this thread (the only one that touches it).
          const size_t index = cursor_.slot();
          lock.unlock();
          Element parent;
          Status s = Pull(parent, input_end_);
          std::unique_ptr<Slot> opened;
          if (s.ok() && !input_end_) s = d_.OpenSlot(ctx_, std::move(parent), opened);
          lock.lock();
          RETURN_IF_ERROR(s);
          if (opened) {
            if (cancelled_) opened->iterator->Cancel();
            slots_[index] = std::move(opened);
            ++open_;
            worker_cv_.notify_all();
          }
        } else if (input_end_ && open_ == 0) {
          end = true;
          return Status::Ok();
        } else {
          cursor_.NextSlot(cycle);
        }
      }
    }

   private:
    Status TakeLocked(Slot& slot, Element& out, size_t cycle, bool in_turn,
                      std::unique_lock<std::mutex>& lock) {
      Slot::Entry entry = std::move(slot.ready.front());
      slot.ready.pop_front();
      --buffered_;
      stats_->buffered.store(buffered_, std::memory_order_relaxed);
      if (in_turn) cursor_.Took(d_.block_length(), cycle);
      lock.unlock();
      worker_cv_.notify_all();
      out = std::move(entry.element);
      return std::move(entry.status);
    }

    void GrowWorkersLocked() {
      workers_.Grow(static_cast<int>(d_.parallelism_->value()), stats_->name,
                    [this](int i) { WorkerLoop(i); });
    }

    void OnKnobChanged() {
      {
        std::lock_guard lock(mu_);
        if (started_ && !cancelled_) GrowWorkersLocked();
      }
      worker_cv_.notify_all();
      consumer_cv_.notify_all();
    }

    // The open slot most worth reading ahead: the first one at or after the consumer's
    // position that nobody is reading and whose block is not yet buffered.
    Slot* PickSlotLocked() {
      const size_t n = slots_.size();
      const auto limit = static_cast<size_t>(d_.block_length());
      for (size_t k = 0; k < n; ++k) {
        Slot* s = slots_[(cursor_.slot() + k) % n].get();
        if (s && !s->busy && !s->end && s->ready.size() < limit) return s;
      }
      return nullptr;
    }

    void WorkerLoop(int index) {
      while (true) {
        Slot* slot = nullptr;
        {
          std::unique_lock lock(mu_);
          // Waiting while inputs are open means every open input's block is buffered:
          // blocked on output. Beyond the parallelism, or with nothing open, it is idle.
          const bool wanted = index < d_.parallelism_->value() && open_ > 0;
          const uint64_t wait_start = TicksIfRecording();
          worker_cv_.wait(lock, [&] {
            return cancelled_ || (index < d_.parallelism_->value() && (slot = PickSlotLocked()));
          });
          if (cancelled_) return;
          RecordSpan(wanted ? record::EventKind::kBlocked : record::EventKind::kIdle, wait_start,
                     TicksIfRecording());
          slot->busy = true;
        }
        Slot::Entry entry;
        bool end = false;
        const uint64_t fetch_start = TicksIfRecording();
        entry.status = slot->iterator->GetNext(entry.element, end);
        RecordSpan(record::EventKind::kWaitInput, fetch_start, TicksIfRecording());
        {
          std::lock_guard lock(mu_);
          slot->busy = false;
          if (end) {
            slot->end = true;
          } else {
            if (!entry.status.ok()) {
              if (entry.status.code() != StatusCode::kCancelled) {
                entry.status = entry.status.WithContext("interleave '" + stats_->name + "'");
              }
              slot->end = true;  // deliver the error, then treat the element as finished
            }
            slot->ready.push_back(std::move(entry));
            ++buffered_;
            stats_->buffered.store(buffered_, std::memory_order_relaxed);
          }
        }
        consumer_cv_.notify_all();
      }
    }

    const InterleaveDataset& d_;
    std::vector<std::unique_ptr<Slot>> slots_;
    InterleaveCursor cursor_;
    int open_ = 0;
    int64_t buffered_ = 0;
    bool input_end_ = false;
    bool started_ = false;
    TunableSubscription parallelism_sub_;
    TunableSubscription cycle_sub_;
    TunableSubscription block_sub_;
  };

  DatasetPtr per_element_;
  TunablePtr cycle_;
  TunablePtr block_;
  TunablePtr parallelism_;
  const bool deterministic_;
};

}  // namespace

DatasetPtr MakeInterleaveDataset(StatsPtr stats, DatasetPtr input, DatasetPtr per_element,
                                 TunablePtr cycle_length, TunablePtr block_length,
                                 TunablePtr parallelism, bool deterministic) {
  if (parallelism) stats->asynchronous = true;
  return std::make_shared<InterleaveDataset>(
      std::move(stats), std::move(input), std::move(per_element), std::move(cycle_length),
      std::move(block_length), std::move(parallelism), deterministic);
}

}  // namespace pipescope::engine
