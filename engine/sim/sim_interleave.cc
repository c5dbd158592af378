// The simulator's interleave: a cycle of cycle_length sub-pipelines (one per input element,
// typically a file), block_length elements from each in turn; an exhausted one is replaced
// by the next input element's. Synchronous without num_parallel_calls; otherwise worker
// threads read ahead into a small buffer per open cycle element, serving the element whose
// turn comes first. As in the engine, the consumer opens a cycle element when its turn
// comes (pulling the input on its own thread), so input elements go to the cycle in turn
// order whatever the workers do.
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
};

class InterleaveItBase : public SimIterator {
 public:
  InterleaveItBase(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
                   SimDatasetPtr per_element, int64_t cycle_length, int64_t block_length)
      : SimIterator(ctx, stage),
        input_(std::move(input)),
        per_element_(std::move(per_element)),
        cycle_(static_cast<size_t>(std::max<int64_t>(1, cycle_length))),
        block_length_(std::max<int64_t>(1, block_length)) {}
  void Cancel() override {
    SimIterator::Cancel();
    input_->Cancel();
    for (auto& e : cycle_) {
      if (e.it) e.it->Cancel();
    }
  }

 protected:
  bool AllDead() const {
    return std::all_of(cycle_.begin(), cycle_.end(), [](const CycleEntry& e) { return e.dead; });
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
  std::vector<CycleEntry> cycle_;
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
      CycleEntry& e = cycle_[cursor_.slot()];
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
        per_entry_capacity_(std::max<int64_t>(2, block_length)),
        changed_(*ctx.scheduler) {
    asynchronous_ = true;
  }
  void Cancel() override {
    InterleaveItBase::Cancel();
    changed_.NotifyAll();
  }
  int64_t BufferLevel() const override {
    int64_t n = 0;
    for (const auto& e : cycle_) n += static_cast<int64_t>(e.buffer.size());
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
    StartWorkers();
    while (!cancelled_) {
      if (AllDead()) co_return 0;
      // Deterministic: only the current entry may serve; otherwise the first with an element.
      const size_t tries = deterministic_ ? 1 : cycle_.size();
      bool moved_on = false;  // the turn moved past an exhausted or dead entry: look again
      for (size_t k = 0; k < tries && !moved_on; ++k) {
        CycleEntry& e = cycle_[cursor_.slot()];
        if (!e.buffer.empty()) {
          const int64_t n = TakeInTurn(max_rows, out);
          changed_.NotifyAll();
          co_await HandOff(thread, n);
          co_return n;
        }
        if (e.needs_open && !e.dead) {
          if (input_busy_) break;  // another consumer is pulling the input: wait for it
          co_await OpenInTurn(thread, e);
          moved_on = true;  // look at the entry again, opened or dead
        } else if (e.ended && !e.busy) {
          Exhausted(e);
          changed_.NotifyAll();
          moved_on = true;
          Advance();
        } else if (e.dead) {
          moved_on = true;
          Advance();
        } else if (!deterministic_) {
          Advance();  // not deterministic: any entry may serve
        }
      }
      if (moved_on) continue;
      co_await changed_.Wait();
    }
    co_return 0;
  }

  // Opens the entry whose turn it is with the next input element, on the consumer's thread
  // (the engine's rule); the entry is dead when the input has ended. Other consumers wait
  // while one pulls the input.
  Task<void> OpenInTurn(SimThread& thread, CycleEntry& e) {
    input_busy_ = true;
    co_await OpenEntry(thread, e);
    input_busy_ = false;
    changed_.NotifyAll();
  }

 private:
  // Takes the current entry's next element, and the next turns' while their entries have
  // one, until max_rows rows (at least one element); how many it took.
  int64_t TakeInTurn(int64_t max_rows, std::vector<SimElement>& out) {
    int64_t n = 0, rows = 0;
    do {
      CycleEntry& e = cycle_[cursor_.slot()];
      rows += e.buffer.front().rows;
      out.push_back(e.buffer.front());
      e.buffer.pop_front();
      Took();
      ++n;
    } while (rows < max_rows && !cycle_[cursor_.slot()].buffer.empty());
    return n;
  }

  void StartWorkers() {
    if (started_) return;
    started_ = true;
    for (int64_t i = 0; i < parallelism_; ++i) {
      scheduler().Spawn(Worker(ctx_.NewThread(stage_.name + "/" + std::to_string(i))));
    }
  }

  // The entry a worker should read next: the first open one, from the current turn on, that
  // is idle and has room.
  CycleEntry* FindWork() {
    for (size_t k = 0; k < cycle_.size(); ++k) {
      CycleEntry& e = cycle_[(cursor_.slot() + k) % cycle_.size()];
      if (e.busy || e.dead || e.ended || e.needs_open) continue;
      if (static_cast<int64_t>(e.buffer.size()) < per_entry_capacity_) return &e;
    }
    return nullptr;
  }

  Task<void> Worker(SimThread& thread) {
    int64_t blocked_since = -1;  // one span per wait for work, however often it is woken
    while (!cancelled_) {
      CycleEntry* e = FindWork();
      if (!e) {
        if (AllDead()) co_return;
        if (blocked_since < 0) blocked_since = now();
        co_await changed_.Wait();
        continue;
      }
      if (blocked_since >= 0) {
        ctx_.trace->Span(EventKind::kBlocked, stage_.id, thread, blocked_since, now());
        blocked_since = -1;
      }
      e->busy = true;
      const int64_t fetch_start = now();
      SimElement out;
      const bool pulled = co_await e->it->GetNext(thread, out);
      if (pulled) {
        co_await HandOff(thread);
        e->buffer.push_back(out);
      } else {
        e->ended = true;
      }
      ctx_.trace->Span(EventKind::kWaitInput, stage_.id, thread, fetch_start, now());
      e->busy = false;
      changed_.NotifyAll();
    }
  }

  const int64_t parallelism_;
  const bool deterministic_;
  const int64_t per_entry_capacity_;
  Notifier changed_;
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
  std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx, const SimElement* parent) override {
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
