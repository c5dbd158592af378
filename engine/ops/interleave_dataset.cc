// Dataset.interleave(per_element, cycle_length, block_length, num_parallel_calls,
// deterministic): opens a sub-pipeline for up to cycle_length input elements at a time and
// takes block_length elements from each in turn (tf.data's order exactly).
//
// Synchronous (no num_parallel_calls): everything happens on the caller's thread.
// Parallel, as tf.data runs it (interleave_rules.h, InterleaveReadAhead): all cycle_length
// inputs are opened at the first call and read by up to `parallelism` workers (nearest to
// the consumer's position first), and the next 2 × cycle_length inputs are opened and read
// ahead by workers of their own, so slow storage is read concurrently and an input that ends
// is replaced by one already open. The output order is the synchronous one unless
// deterministic is false, in which case the consumer may take from any input that has an
// element instead of waiting.
//
// All three knobs are live. A smaller cycle_length stops opening slots beyond it but
// still drains those already open, so no element is lost.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>
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
    bool end = false;       // the sub-pipeline reported its end (after `ready` drains)
    bool busy = false;      // a worker is fetching from it
    bool in_cycle = false;  // it has its place in the cycle (else it waits ahead of it)
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

  // tf.data's parallel interleave (interleave_rules.h, InterleaveReadAhead): the cycle's
  // inputs are all open and read by up to num_parallel_calls workers; the next inputs are
  // opened and read ahead by workers of their own. The consumer takes elements in turn
  // (deterministic) or from any input that has one.
  class ParallelIt : public AsyncIterator {
   public:
    ParallelIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
               const InterleaveDataset& d)
        : AsyncIterator(ctx, stats, std::move(in)),
          d_(d),
          parallelism_sub_(d.parallelism_.get(), [this] { OnKnobChanged(); }),
          cycle_sub_(d.cycle_.get(), [this] { OnKnobChanged(); }),
          block_sub_(d.block_.get(), [this] { OnKnobChanged(); }) {}

    ~ParallelIt() override {
      StopAndJoin();
      ahead_workers_.JoinAll();
    }

    void Cancel() override {
      {
        std::lock_guard lock(mu_);
        for (auto& s : slots_) {
          if (s) s->iterator->Cancel();
        }
        for (auto& s : ahead_) s->iterator->Cancel();
      }
      AsyncIterator::Cancel();
      ahead_cv_.notify_all();
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      std::unique_lock lock(mu_);
      if (!started_) {
        started_ = true;
        // Every input of the cycle is opened at the first call, as tf.data does.
        const auto cycle = static_cast<size_t>(std::max<int64_t>(1, d_.cycle_length()));
        slots_.resize(cycle);
        for (size_t i = 0; i < cycle && !input_end_; ++i) {
          RETURN_IF_ERROR(FillLocked(i, lock));
        }
        GrowWorkersLocked();
      }
      while (true) {
        if (cancelled_) return Cancelled();
        const size_t cycle = EffectiveCycle(slots_, d_.cycle_length());
        if (slots_.size() < cycle) slots_.resize(cycle);
        cursor_.Wrap(cycle);
        const size_t index = cursor_.slot();
        auto& slot = slots_[index];
        if (slot) {
          if (!slot->ready.empty()) return TakeLocked(*slot, out, cycle, true, lock);
          if (slot->end && !slot->busy) {
            CloseLocked(index, lock);
            // Its place goes to the next input at once, so the workers read it while the
            // turn goes round.
            if (index < static_cast<size_t>(d_.cycle_length())) {
              RETURN_IF_ERROR(FillLocked(index, lock));
            }
            cursor_.NextSlot(cycle);
            continue;
          }
          if (!d_.deterministic_) {
            if (auto taken = TakeAnyLocked(out, cycle, lock)) return std::move(*taken);
          }
          consumer_cv_.wait(lock);
        } else if (index < static_cast<size_t>(d_.cycle_length()) && !InputDoneLocked()) {
          RETURN_IF_ERROR(FillLocked(index, lock));
          if (!slots_[index]) cursor_.NextSlot(cycle);
        } else if (InputDoneLocked() && open_ == 0) {
          end = true;
          return Status::Ok();
        } else {
          cursor_.NextSlot(cycle);
        }
      }
    }

   private:
    // Nothing more will come from the input: it ended and no input is waiting ahead.
    bool InputDoneLocked() const { return input_end_ && ahead_.empty() && !input_busy_; }

    // Puts the next input, opened ahead or opened now on this thread, into slot `index`;
    // leaves it empty when the input has ended. An error pulling or opening the input is
    // returned here, in the input's order.
    Status FillLocked(size_t index, std::unique_lock<std::mutex>& lock) {
      while (ahead_.empty()) {
        if (cancelled_) return Cancelled();
        if (!input_status_.ok()) return std::exchange(input_status_, Status::Ok());
        if (input_end_ && !input_busy_) return Status::Ok();
        if (input_busy_) {
          consumer_cv_.wait(lock);
          continue;
        }
        OpenNextLocked(lock, /*on_consumer=*/true);
      }
      MoveAheadIntoCycleLocked(index);
      return Status::Ok();
    }

    // Pulls the next input element and opens its sub-pipeline, outside the lock, and queues
    // it ahead. One thread at a time (input_busy_), so inputs queue in the input's order.
    void OpenNextLocked(std::unique_lock<std::mutex>& lock, bool on_consumer) {
      input_busy_ = true;
      lock.unlock();
      Element parent;
      bool input_end = false;
      Status s;
      if (on_consumer) {
        s = Pull(parent, input_end);
      } else {
        const uint64_t start = TicksIfRecording();
        s = input_->GetNext(parent, input_end);
        RecordSpan(record::EventKind::kWaitInput, start, TicksIfRecording());
      }
      std::unique_ptr<Slot> opened;
      if (s.ok() && !input_end) s = d_.OpenSlot(ctx_, std::move(parent), opened);
      lock.lock();
      input_busy_ = false;
      if (!s.ok()) {
        input_status_ = std::move(s);
      } else if (input_end) {
        input_end_ = true;
      } else {
        if (cancelled_) opened->iterator->Cancel();
        ahead_.push_back(std::move(opened));
        ahead_cv_.notify_all();
      }
      consumer_cv_.notify_all();
    }

    void CloseLocked(size_t index, std::unique_lock<std::mutex>& lock) {
      std::unique_ptr<Slot> closed = std::move(slots_[index]);
      --open_;
      lock.unlock();
      closed.reset();  // may join threads of the sub-pipeline: outside the lock
      lock.lock();
    }

    // Not deterministic: an element from whichever input has one, closing and replacing
    // inputs that ended on the way (with inputs opened ahead; it never waits for the input).
    // nullopt when no input has one.
    std::optional<Status> TakeAnyLocked(Element& out, size_t cycle,
                                        std::unique_lock<std::mutex>& lock) {
      for (size_t k = 0; k < slots_.size(); ++k) {
        const size_t i = (cursor_.slot() + k) % slots_.size();
        Slot* s = slots_[i].get();
        if (!s) continue;
        if (!s->ready.empty()) return TakeLocked(*s, out, cycle, false, lock);
        if (s->end && !s->busy && i != cursor_.slot()) {
          CloseLocked(i, lock);
          if (i < static_cast<size_t>(d_.cycle_length()) && !ahead_.empty()) {
            MoveAheadIntoCycleLocked(i);
          }
          k = static_cast<size_t>(-1);  // the lock was let go: look at every slot again
        }
      }
      return std::nullopt;
    }

    void MoveAheadIntoCycleLocked(size_t index) {
      slots_[index] = std::move(ahead_.front());
      ahead_.pop_front();
      slots_[index]->in_cycle = true;
      ++open_;
      worker_cv_.notify_all();  // the cycle's workers may read it
      ahead_cv_.notify_all();   // a place ahead came free
    }

    Status TakeLocked(Slot& slot, Element& out, size_t cycle, bool in_turn,
                      std::unique_lock<std::mutex>& lock) {
      Slot::Entry entry = std::move(slot.ready.front());
      slot.ready.pop_front();
      --buffered_;
      SetBufferLevel(buffered_);
      if (in_turn) cursor_.Took(d_.block_length(), cycle);
      lock.unlock();
      worker_cv_.notify_all();
      out = std::move(entry.element);
      return std::move(entry.status);
    }

    void GrowWorkersLocked() {
      workers_.Grow(static_cast<int>(d_.parallelism_->value()), stats_->name,
                    [this](int i) { WorkerLoop(i); });
      ahead_workers_.Grow(static_cast<int>(InterleaveReadAhead::AheadReaders(d_.cycle_length())),
                          stats_->name + ".ahead", [this](int i) { AheadWorkerLoop(i); });
    }

    void OnKnobChanged() {
      {
        std::lock_guard lock(mu_);
        if (started_ && !cancelled_) GrowWorkersLocked();
      }
      worker_cv_.notify_all();
      ahead_cv_.notify_all();
      consumer_cv_.notify_all();
    }

    int64_t results_per_input() const {
      return InterleaveReadAhead::ResultsPerInput(d_.block_length());
    }
    bool NeedsReading(const Slot& s) const {
      return !s.busy && !s.end && static_cast<int64_t>(s.ready.size()) < results_per_input();
    }

    // The cycle's input most worth reading: the first from the consumer's position on that
    // nobody is reading and whose buffer has room.
    Slot* PickSlotLocked() {
      const size_t n = slots_.size();
      for (size_t k = 0; k < n; ++k) {
        Slot* s = slots_[(cursor_.slot() + k) % n].get();
        if (s && NeedsReading(*s)) return s;
      }
      return nullptr;
    }

    // The input opened ahead most worth reading: the nearest to joining the cycle.
    Slot* PickAheadLocked() {
      for (auto& s : ahead_) {
        if (NeedsReading(*s)) return s.get();
      }
      return nullptr;
    }

    // Reads one element of `slot` (marked busy by the caller) into its buffer, outside the
    // lock.
    void ReadOne(Slot* slot) {
      Slot::Entry entry;
      bool end = false;
      const uint64_t fetch_start = TicksIfRecording();
      entry.status = slot->iterator->GetNext(entry.element, end);
      RecordSpan(record::EventKind::kWaitInput, fetch_start, TicksIfRecording());
      bool joined_cycle = false;
      {
        std::lock_guard lock(mu_);
        slot->busy = false;
        joined_cycle = slot->in_cycle;
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
          SetBufferLevel(buffered_);
        }
      }
      consumer_cv_.notify_all();
      // An input that joined the cycle while read ahead: the cycle's workers go on with it.
      if (joined_cycle) worker_cv_.notify_all();
    }

    void WorkerLoop(int index) {
      while (true) {
        Slot* slot = nullptr;
        {
          std::unique_lock lock(mu_);
          // Waiting while inputs are open means every open input's buffer is full: blocked
          // on output. Beyond the parallelism, or with nothing open, it is idle.
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
        ReadOne(slot);
      }
    }

    // Opens inputs ahead of the cycle and reads their first results.
    void AheadWorkerLoop(int index) {
      while (true) {
        std::unique_lock lock(mu_);
        Slot* slot = nullptr;
        bool open = false;
        const uint64_t wait_start = TicksIfRecording();
        ahead_cv_.wait(lock, [&] {
          if (cancelled_) return true;
          if (index >= InterleaveReadAhead::AheadReaders(d_.cycle_length())) return false;
          if ((slot = PickAheadLocked())) return true;
          open = !input_busy_ && !input_end_ && input_status_.ok() &&
                 static_cast<int64_t>(ahead_.size()) <
                     InterleaveReadAhead::InputsOpenedAhead(d_.cycle_length());
          return open;
        });
        if (cancelled_) return;
        RecordSpan(record::EventKind::kIdle, wait_start, TicksIfRecording());
        if (slot) {
          slot->busy = true;
          lock.unlock();
          ReadOne(slot);
        } else {
          OpenNextLocked(lock, /*on_consumer=*/false);
        }
      }
    }

    const InterleaveDataset& d_;
    std::vector<std::unique_ptr<Slot>> slots_;  // the cycle
    std::deque<std::unique_ptr<Slot>> ahead_;   // inputs opened ahead, in the input's order
    InterleaveCursor cursor_;
    int open_ = 0;
    int64_t buffered_ = 0;
    bool input_end_ = false;
    bool input_busy_ = false;  // a thread is pulling the input or opening what it gave
    Status input_status_;      // an error pulling or opening, for the consumer to return
    bool started_ = false;
    std::condition_variable ahead_cv_;
    WorkerThreads ahead_workers_;
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
