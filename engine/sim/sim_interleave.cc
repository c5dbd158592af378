// The simulator's interleave: a cycle of cycle_length sub-pipelines (one per input element,
// typically a file), block_length elements from each in turn; an exhausted one is replaced
// by the next input element's. Synchronous without num_parallel_calls. Parallel, as tf.data
// runs it and the engine does (interleave_rules.h, InterleaveReadAhead): every cycle element
// is opened at the first call and read by up to num_parallel_calls workers, the next
// 2 × cycle_length input elements are opened and read ahead by workers of their own, and an
// exhausted cycle element is replaced, on its turn, by the first one opened ahead, so input
// elements go to the cycle in the sequential order whatever the workers do.
#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include "engine/runtime/interleave_rules.h"
#include "engine/sim/sim_ops.h"

namespace pipescope::sim {
namespace {

using record::EventKind;

struct CycleEntry {
  std::unique_ptr<SimIterator> it;
  std::deque<SimElement> buffer;
  bool needs_open = true;  // waiting for the next input element
  bool ended = false;      // its sub-pipeline is exhausted (buffer may still hold some)
  bool dead = false;       // no input element is left to open
  bool busy = false;       // a worker is reading it
  bool in_cycle = false;   // parallel: it has its place in the cycle (else it waits ahead)
};

class InterleaveItBase : public SimIterator {
 public:
  InterleaveItBase(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
                   SimDatasetPtr per_element, int64_t cycle_length, int64_t block_length)
      : SimIterator(ctx, stage),
        input_(std::move(input)),
        per_element_(std::move(per_element)),
        block_length_(std::max<int64_t>(1, block_length)) {
    const auto n = static_cast<size_t>(std::max<int64_t>(1, cycle_length));
    for (size_t i = 0; i < n; ++i) cycle_.push_back(std::make_unique<CycleEntry>());
  }
  void Cancel() override {
    SimIterator::Cancel();
    input_->Cancel();
    for (auto& e : cycle_) {
      if (e->it) e->it->Cancel();
    }
  }

 protected:
  bool AllDead() const {
    return std::all_of(cycle_.begin(), cycle_.end(),
                       [](const std::unique_ptr<CycleEntry>& e) { return e->dead; });
  }
  void Advance() { cursor_.NextSlot(cycle_.size()); }
  // The turn of `out` was taken from the current entry.
  void Took() { cursor_.Took(block_length_, cycle_.size()); }
  // Opens `e` with the next input element, pulled on `thread`; `e` is dead when the input
  // has ended.
  Task<void> OpenEntry(SimThread& thread, CycleEntry& e) {
    SimElement parent;
    bool got = false;
    if (!input_end_) got = co_await Pull(*input_, thread, parent);
    if (got) {
      e.it = per_element_->MakeIterator(ctx_, &parent);
      e.needs_open = false;
    } else {
      input_end_ = true;
      e.dead = true;
    }
  }
  void Exhausted(CycleEntry& e) {
    ctx_.Retire(std::move(e.it));
    e.needs_open = true;
    e.ended = false;
  }

  std::unique_ptr<SimIterator> input_;
  SimDatasetPtr per_element_;
  // Each entry at a stable address: a worker reads an entry across suspensions while the
  // parallel interleave moves entries from ahead of the cycle into it.
  std::vector<std::unique_ptr<CycleEntry>> cycle_;
  const int64_t block_length_;
  engine::InterleaveCursor cursor_;
  bool input_end_ = false;
};

class InterleaveIt : public InterleaveItBase {
 public:
  using InterleaveItBase::InterleaveItBase;

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    while (!AllDead()) {
      CycleEntry& e = *cycle_[cursor_.slot()];
      if (e.dead) {
        Advance();
        continue;
      }
      if (e.needs_open) {
        co_await OpenEntry(thread, e);
        if (e.dead) continue;
      }
      const bool pulled = co_await Pull(*e.it, thread, out);
      if (pulled) {
        co_await Charge(thread, CpuCost(1), 0);
        Took();
        co_return true;
      }
      Exhausted(e);
      Advance();
    }
    co_return false;
  }
};

class ParallelInterleaveIt : public InterleaveItBase {
 public:
  ParallelInterleaveIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
                       SimDatasetPtr per_element, int64_t cycle_length, int64_t block_length,
                       int64_t parallelism, bool deterministic)
      : InterleaveItBase(ctx, stage, std::move(input), std::move(per_element), cycle_length,
                         block_length),
        parallelism_(std::max<int64_t>(1, parallelism)),
        deterministic_(deterministic),
        per_entry_capacity_(engine::InterleaveReadAhead::ResultsPerInput(block_length_)),
        ahead_capacity_(
            engine::InterleaveReadAhead::InputsOpenedAhead(static_cast<int64_t>(cycle_.size()))),
        consumer_wake_(*ctx.scheduler),
        cycle_wake_(*ctx.scheduler),
        ahead_wake_(*ctx.scheduler) {
    asynchronous_ = true;
  }
  void Cancel() override {
    InterleaveItBase::Cancel();
    for (auto& e : ahead_) {
      if (e->it) e->it->Cancel();
    }
    consumer_wake_.NotifyAll();
    cycle_wake_.NotifyAll();
    ahead_wake_.NotifyAll();
  }
  int64_t BufferLevel() const override {
    int64_t n = 0;
    for (const auto& e : cycle_) n += static_cast<int64_t>(e->buffer.size());
    for (const auto& e : ahead_) n += static_cast<int64_t>(e->buffer.size());
    return n;
  }

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    return OneOfRun(thread, out);
  }

  // The element whose turn it is (waiting for it), then those whose turns follow while
  // they are there already, until `max_rows` rows: what GetNext would give one call after
  // another, for one hand-off. A parallel map's worker takes its group this way.
  Task<int64_t> GetNextRunInternal(SimThread& thread, int64_t max_rows,
                                   std::vector<SimElement>& out) override {
    if (!started_) {
      started_ = true;
      // Every cycle element is opened at the first call, on the consumer's thread.
      for (auto& e : cycle_) co_await FillEntry(thread, *e);
      StartWorkers();
    }
    while (!cancelled_) {
      if (AllDead()) co_return 0;
      // Deterministic: only the current entry may serve; otherwise the first with an element.
      const size_t tries = deterministic_ ? 1 : cycle_.size();
      bool moved_on = false;  // the turn moved past an exhausted or dead entry: look again
      for (size_t k = 0; k < tries && !moved_on; ++k) {
        CycleEntry& e = *cycle_[cursor_.slot()];
        if (!e.buffer.empty()) {
          const int64_t n = TakeInTurn(max_rows, out);
          cycle_wake_.NotifyFirst(static_cast<size_t>(n));  // room in a buffer for each
          co_await TakeOver(thread, handoffs_, n);
          co_return n;
        }
        if (e.needs_open && !e.dead) {
          if (input_busy_ && ahead_.empty()) break;  // the input is being pulled: wait
          co_await FillEntry(thread, e);
          moved_on = true;  // look at the entry again, opened or dead
        } else if (e.ended && !e.busy) {
          Exhausted(e);
          // Its place goes to the next input element at once, so the workers read it while
          // the turn goes round.
          if (!ahead_.empty() || !input_busy_) co_await FillEntry(thread, *cycle_[cursor_.slot()]);
          moved_on = true;
          Advance();
        } else if (e.dead) {
          // In turn, the next entry is to be looked at now; without a turn a dead entry is
          // passed like a busy one (looking again at once would only come back to it).
          moved_on = deterministic_;
          Advance();
        } else if (!deterministic_) {
          Advance();  // not deterministic: any entry may serve
        }
      }
      if (moved_on) continue;
      handoffs_.TakerWaits(true);
      co_await consumer_wake_.Wait();
      handoffs_.TakerWaits(false);
    }
    co_return 0;
  }

 private:
  // Puts the next input element into cycle entry `e` (which needs one): the first opened
  // ahead, else one pulled now on `thread`; `e` is dead when the input has ended. The
  // caller has checked that the input is free or an element waits ahead.
  Task<void> FillEntry(SimThread& thread, CycleEntry& e) {
    if (ahead_.empty()) co_await OpenAhead(thread);
    CycleEntry* slot = &e;
    for (auto& c : cycle_) {
      if (c.get() != slot) continue;
      if (ahead_.empty()) {
        c->dead = input_end_;
      } else {
        c = std::move(ahead_.front());
        ahead_.pop_front();
        c->in_cycle = true;
      }
      break;
    }
    // An entry to read, for one cycle worker; every entry dead, for all of them to end.
    if (AllDead()) {
      cycle_wake_.NotifyAll();
    } else {
      cycle_wake_.NotifyFirst(1);
    }
    ahead_wake_.NotifyAll();  // room ahead, or every entry dead
  }

  // Pulls the next input element on `thread` and opens it ahead of the cycle; marks the
  // input's end. One thread at a time, so elements queue in the input's order.
  Task<void> OpenAhead(SimThread& thread) {
    if (input_end_) co_return;
    input_busy_ = true;
    auto e = std::make_unique<CycleEntry>();
    co_await OpenEntry(thread, *e);
    input_busy_ = false;
    if (!e->dead) ahead_.push_back(std::move(e));
    consumer_wake_.NotifyAll();  // the input is free, an entry waits ahead
    ahead_wake_.NotifyAll();
  }

  // Takes the current entry's next element, and the next turns' while their entries have
  // one, until max_rows rows (at least one element); how many it took.
  int64_t TakeInTurn(int64_t max_rows, std::vector<SimElement>& out) {
    int64_t n = 0, rows = 0;
    do {
      CycleEntry& e = *cycle_[cursor_.slot()];
      rows += e.buffer.front().rows;
      out.push_back(e.buffer.front());
      e.buffer.pop_front();
      Took();
      ++n;
    } while (rows < max_rows && !cycle_[cursor_.slot()]->buffer.empty());
    return n;
  }

  void StartWorkers() {
    for (int64_t i = 0; i < parallelism_; ++i) {
      scheduler().Spawn(Worker(ctx_.NewThread(stage_.name + "/" + std::to_string(i)), false));
    }
    const int64_t ahead =
        engine::InterleaveReadAhead::AheadReaders(static_cast<int64_t>(cycle_.size()));
    for (int64_t i = 0; i < ahead; ++i) {
      scheduler().Spawn(Worker(ctx_.NewThread(stage_.name + ".ahead/" + std::to_string(i)), true));
    }
  }

  bool NeedsReading(const CycleEntry& e) const {
    return !e.busy && !e.dead && !e.ended && !e.needs_open &&
           static_cast<int64_t>(e.buffer.size()) < per_entry_capacity_;
  }

  // The entry a cycle worker should read next: the first open one, from the current turn
  // on, that is idle and has room; for a worker ahead of the cycle, the first opened ahead.
  CycleEntry* FindWork(bool ahead) {
    if (ahead) {
      for (auto& e : ahead_) {
        if (NeedsReading(*e)) return e.get();
      }
      return nullptr;
    }
    for (size_t k = 0; k < cycle_.size(); ++k) {
      CycleEntry& e = *cycle_[(cursor_.slot() + k) % cycle_.size()];
      if (NeedsReading(e)) return &e;
    }
    return nullptr;
  }

  bool ShouldOpenAhead() const {
    return !input_end_ && !input_busy_ && static_cast<int64_t>(ahead_.size()) < ahead_capacity_;
  }

  Task<void> Worker(SimThread& thread, bool ahead) {
    int64_t blocked_since = -1;  // one span per wait for work, however often it is woken
    while (!cancelled_) {
      CycleEntry* e = FindWork(ahead);
      if (!e && ahead && ShouldOpenAhead()) {
        co_await OpenAhead(thread);
        continue;
      }
      if (!e) {
        if (AllDead() && ahead_.empty()) co_return;
        if (blocked_since < 0) blocked_since = now();
        co_await (ahead ? ahead_wake_ : cycle_wake_).Wait();
        continue;
      }
      if (blocked_since >= 0) {
        ctx_.trace->Span(ahead ? EventKind::kIdle : EventKind::kBlocked, stage_.id, thread,
                         blocked_since, now());
        blocked_since = -1;
      }
      e->busy = true;
      const int64_t fetch_start = now();
      SimElement out;
      const bool pulled = co_await e->it->GetNext(thread, out);
      if (pulled) {
        co_await HandOn(thread, handoffs_);
        e->buffer.push_back(out);
      } else {
        e->ended = true;
      }
      ctx_.trace->Span(EventKind::kWaitInput, stage_.id, thread, fetch_start, now());
      e->busy = false;
      consumer_wake_.NotifyAll();
      // Read ahead, then moved into the cycle meanwhile: the cycle's workers take it on.
      if (ahead && e->in_cycle) cycle_wake_.NotifyFirst(1);
    }
  }

  const int64_t parallelism_;
  const bool deterministic_;
  const int64_t per_entry_capacity_;
  const int64_t ahead_capacity_;
  std::deque<std::unique_ptr<CycleEntry>> ahead_;  // opened ahead, in the input's order
  // Who waits for what: the consumer for an element or a free input, the cycle's workers for
  // an entry with room, the workers ahead for room ahead or a free input. Apart, so a change
  // wakes only those it concerns.
  Notifier consumer_wake_, cycle_wake_, ahead_wake_;
  HandOffLedger handoffs_;  // from the workers to the consumer
  bool input_busy_ = false;
  bool started_ = false;
};

class InterleaveDataset : public SimDataset {
 public:
  InterleaveDataset(SimStage& stage, SimDatasetPtr input, SimDatasetPtr per_element,
                    int64_t cycle_length, int64_t block_length, int64_t parallelism,
                    bool deterministic)
      : SimDataset(stage),
        input_(std::move(input)),
        per_element_(std::move(per_element)),
        cycle_length_(cycle_length),
        block_length_(block_length),
        parallelism_(parallelism),
        deterministic_(deterministic) {}
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx,
                                            const SimElement* parent) const override {
    auto input = input_->MakeIterator(ctx, parent);
    if (parallelism_ == 0) {
      return std::make_unique<InterleaveIt>(ctx, stage_, std::move(input), per_element_,
                                            cycle_length_, block_length_);
    }
    return std::make_unique<ParallelInterleaveIt>(ctx, stage_, std::move(input), per_element_,
                                                  cycle_length_, block_length_, parallelism_,
                                                  deterministic_);
  }

 private:
  SimDatasetPtr input_, per_element_;
  const int64_t cycle_length_, block_length_, parallelism_;
  const bool deterministic_;
};

}  // namespace

SimDatasetPtr MakeSimInterleave(SimStage& stage, SimDatasetPtr input, SimDatasetPtr per_element,
                                int64_t cycle_length, int64_t block_length, int64_t parallelism,
                                bool deterministic) {
  return std::make_shared<InterleaveDataset>(stage, std::move(input), std::move(per_element),
                                             cycle_length, block_length, parallelism,
                                             deterministic);
}

}  // namespace pipescope::sim
