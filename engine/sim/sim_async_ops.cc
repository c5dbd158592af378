// The simulator's asynchronous ops, parallel map and prefetch: worker threads of their own
// and a bounded output buffer, recorded as the engine records them (kWaitInput while a
// worker pulls from the input, kWork while the map's function runs, kBlocked while the
// buffer is full).
#include <algorithm>
#include <deque>
#include <list>
#include <memory>

#include "engine/runtime/parallel_map_capacity.h"
#include "engine/sim/sim_ops.h"
#include "engine/sim/sim_unary.h"

namespace pipescope::sim {
namespace {

using record::EventKind;

// map(num_parallel_calls = P): P workers take input elements one at a time (the input is
// pulled under a lock, so slots are in input order) and run the function. As in the
// engine's parallel map, max(2P, 16) elements may be in flight or waiting to be taken (64
// when the function takes under 2 us, so that hand-offs are batched), where tf.data holds
// P. Deterministic: handed out in input order; otherwise whichever is done first.
class ParallelMapIt : public SimUnaryIterator {
 public:
  ParallelMapIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
                int64_t parallelism, bool deterministic)
      : SimUnaryIterator(ctx, stage, std::move(input)),
        parallelism_(std::max<int64_t>(1, parallelism)),
        capacity_(Capacity(parallelism_, *stage.cost)),
        deterministic_(deterministic),
        changed_(*ctx.scheduler),
        input_free_(*ctx.scheduler) {
    asynchronous_ = true;
  }
  void Cancel() override {
    SimUnaryIterator::Cancel();
    changed_.NotifyAll();
    input_free_.NotifyAll();
  }
  int64_t BufferLevel() const override { return done_count_; }

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    StartWorkers();
    while (true) {
      for (auto it = slots_.begin(); it != slots_.end(); ++it) {
        if (it->done) {
          out = it->element;
          slots_.erase(it);
          --done_count_;
          changed_.NotifyAll();
          co_await HandOff(thread);
          co_return true;
        }
        if (deterministic_) break;  // the oldest is not done: wait for it
      }
      if (slots_.empty() && input_end_ && fetching_ == 0) co_return false;
      if (cancelled_) co_return false;
      co_await changed_.Wait();
    }
  }

 private:
  struct Slot {
    SimElement element;
    bool done = false;
  };

  void StartWorkers() {
    if (started_) return;
    started_ = true;
    for (int64_t i = 0; i < parallelism_; ++i) {
      SimThread& t = ctx_.NewThread(stage_.name + "/" + std::to_string(i));
      scheduler().Spawn(Worker(t));
    }
  }

  Task<void> Worker(SimThread& thread) {
    while (true) {
      const int64_t wait_start = now();
      bool waited = false;
      while (!cancelled_ && !input_end_ &&
             static_cast<int64_t>(slots_.size()) + fetching_ >= capacity_) {
        waited = true;
        co_await changed_.Wait();
      }
      if (cancelled_ || input_end_) co_return;
      if (waited) ctx_.trace->Span(EventKind::kBlocked, stage_.id, thread, wait_start, now());
      ++fetching_;
      const int64_t fetch_start = now();
      while (input_busy_ && !cancelled_) co_await input_free_.Wait();
      if (cancelled_) co_return;
      input_busy_ = true;
      SimElement e;
      const bool got = co_await input_->GetNext(thread, e);
      input_busy_ = false;
      input_free_.NotifyAll();
      --fetching_;
      if (!got) {
        input_end_ = true;
        ctx_.trace->Span(EventKind::kWaitInput, stage_.id, thread, fetch_start, now());
        changed_.NotifyAll();
        co_return;
      }
      slots_.push_back(Slot{e, false});
      Slot& slot = slots_.back();
      co_await HandOff(thread);
      ctx_.trace->Span(EventKind::kWaitInput, stage_.id, thread, fetch_start, now());
      const int64_t work_start = now();
      co_await Charge(thread, CpuCost(e.rows), WaitCost());
      if (stage_.cost->out_bytes > 0) slot.element.bytes = stage_.cost->out_bytes * e.rows;
      ctx_.trace->Span(EventKind::kWork, stage_.id, thread, work_start, now(), e.id);
      slot.done = true;
      ++done_count_;
      changed_.NotifyAll();
    }
  }

  // The engine's bound, with the model's mean function time for the engine's measured one.
  static int64_t Capacity(int64_t parallelism, const OpCost& cost) {
    return engine::ParallelMapCapacity(
        parallelism, cost.cpu.mean_ns + cost.cpu_per_row.mean_ns + cost.wait.mean_ns);
  }

  const int64_t parallelism_;
  const int64_t capacity_;
  const bool deterministic_;
  Notifier changed_;       // a slot done or taken, the input ended, cancelled
  Notifier input_free_;    // the input lock released
  std::list<Slot> slots_;  // list: a slot stays put while others are taken out of order
  int64_t fetching_ = 0;
  int64_t done_count_ = 0;
  bool input_busy_ = false;
  bool input_end_ = false;
  bool started_ = false;
};

// prefetch(buffer_size): one producer thread keeps up to buffer_size elements ready.
class PrefetchIt : public SimUnaryIterator {
 public:
  PrefetchIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
             int64_t buffer_size)
      : SimUnaryIterator(ctx, stage, std::move(input)),
        capacity_(std::max<int64_t>(1, buffer_size)),
        changed_(*ctx.scheduler) {
    asynchronous_ = true;
  }
  void Cancel() override {
    SimUnaryIterator::Cancel();
    changed_.NotifyAll();
  }
  int64_t BufferLevel() const override { return static_cast<int64_t>(buffer_.size()); }

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    if (!started_) {
      started_ = true;
      scheduler().Spawn(Producer(ctx_.NewThread(stage_.name)));
    }
    while (buffer_.empty() && !input_end_ && !cancelled_) co_await changed_.Wait();
    if (buffer_.empty()) co_return false;
    out = buffer_.front();
    buffer_.pop_front();
    changed_.NotifyAll();
    co_await HandOff(thread);
    co_return true;
  }

 private:
  Task<void> Producer(SimThread& thread) {
    while (true) {
      if (static_cast<int64_t>(buffer_.size()) >= capacity_) {
        const int64_t wait_start = now();
        while (!cancelled_ && static_cast<int64_t>(buffer_.size()) >= capacity_) {
          co_await changed_.Wait();
        }
        ctx_.trace->Span(EventKind::kBlocked, stage_.id, thread, wait_start, now());
      }
      if (cancelled_) co_return;
      const int64_t fetch_start = now();
      SimElement e;
      const bool got = co_await input_->GetNext(thread, e);
      if (got) co_await HandOff(thread);
      ctx_.trace->Span(EventKind::kWaitInput, stage_.id, thread, fetch_start, now());
      if (!got) {
        input_end_ = true;
        changed_.NotifyAll();
        co_return;
      }
      buffer_.push_back(e);
      changed_.NotifyAll();
    }
  }

  const int64_t capacity_;
  Notifier changed_;
  std::deque<SimElement> buffer_;
  bool input_end_ = false;
  bool started_ = false;
};

// prefetch(0): a pass-through that reads ahead nothing.
class PassThroughIt : public SimUnaryIterator {
 public:
  PassThroughIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input)
      : SimUnaryIterator(ctx, stage, std::move(input)) {
    asynchronous_ = true;  // as the engine's prefetch, whatever its buffer
  }

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    co_return co_await PullInput(thread, out);
  }
};

}  // namespace

SimDatasetPtr MakeSimMap(SimStage& stage, SimDatasetPtr input, int64_t parallelism,
                         bool deterministic) {
  if (parallelism == 0) return MakeSimSequentialMap(stage, std::move(input));
  return std::make_shared<SimUnaryDataset<ParallelMapIt, int64_t, bool>>(
      stage, std::move(input), parallelism, deterministic);
}

SimDatasetPtr MakeSimPrefetch(SimStage& stage, SimDatasetPtr input, int64_t buffer_size) {
  if (buffer_size == 0)
    return std::make_shared<SimUnaryDataset<PassThroughIt>>(stage, std::move(input));
  return std::make_shared<SimUnaryDataset<PrefetchIt, int64_t>>(stage, std::move(input),
                                                                buffer_size);
}

}  // namespace pipescope::sim
