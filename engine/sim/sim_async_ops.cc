// The simulator's asynchronous ops, parallel map and prefetch: worker threads of their own
// and a bounded output buffer, recorded as the engine records them (kWaitInput while a
// worker pulls from the input, kWork while the map's function runs, kBlocked while the
// buffer is full).
#include <algorithm>
#include <deque>
#include <list>
#include <memory>
#include <type_traits>

#include "engine/runtime/parallel_map_capacity.h"
#include "engine/runtime/parallel_map_order.h"
#include "engine/sim/sim_ops.h"
#include "engine/sim/sim_unary.h"

namespace pipescope::sim {
namespace {

using record::EventKind;

// map(num_parallel_calls = P): P workers take input elements in groups, as the engine's do
// (about 20 us of work, at most 32; one when the function is slow), pulling them under a lock
// so groups are in input order, and run the function on each. As in the engine's parallel
// map, max(2P, 16) elements may be in flight or waiting to be taken (256 when the function
// takes under 2 us, so that hand-offs are batched), where tf.data holds P; the function's
// time behind both rules is measured as the run goes, from "slow". Deterministic:
// handed out in input order; otherwise whichever group is done first. A group is recorded
// as one kWaitInput and one kWork run; a caller taking several finished elements at once
// (GetNextRun) as one kCall run.
class ParallelMapIt : public SimUnaryIterator {
 public:
  ParallelMapIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
                int64_t parallelism, bool deterministic)
      : SimUnaryIterator(ctx, stage, std::move(input)),
        parallelism_(std::max<int64_t>(1, parallelism)),
        deterministic_(deterministic),
        output_(*ctx.scheduler),
        room_(*ctx.scheduler),
        input_free_(*ctx.scheduler) {
    asynchronous_ = true;
  }
  void Cancel() override {
    SimUnaryIterator::Cancel();
    output_.NotifyAll();
    room_.NotifyAll();
    input_free_.NotifyAll();
  }
  int64_t BufferLevel() const override { return done_count_; }

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    return OneOfRun(thread, out);
  }

  Task<int64_t> GetNextRunInternal(SimThread& thread, int64_t max_rows,
                                   std::vector<SimElement>& out) override {
    return TakeWhenReady(thread, [this, max_rows, &out] {
      return TakeReady(max_rows,
                       [&out](const SimElement* e, size_t n) { out.insert(out.end(), e, e + n); });
    });
  }

  // A batch's take: whole groups as their totals, no element copied (chess_unpack hands
  // half a million elements a second to its batch).
  Task<int64_t> GetNextRunTotalsInternal(SimThread& thread, int64_t max_rows, SimRunTotals& totals,
                                         std::vector<SimElement>& elements,
                                         uint64_t& first_id) override {
    return TakeWhenReady(thread, [this, max_rows, &totals, &elements, &first_id] {
      return TakeReadyTotals(max_rows, totals, elements, first_id);
    });
  }

 private:
  struct Group {
    std::vector<SimElement> elements;
    size_t taken = 0;
    bool done = false;
    // The whole group's totals, and whether its ids are consecutive (set when done).
    SimRunTotals totals;
    bool consecutive = false;
  };
  using Groups = std::list<Group>;  // list: a group stays put while others are taken

  // The buffer's bound, from the function's time as measured so far (the engine's rule).
  int64_t Capacity() const { return engine::ParallelMapCapacity(parallelism_, function_ns_); }

  // Waits until finished elements are there, takes them with `take` (which returns how many
  // it took; 0 only at the end) and charges the caller's side of the hand-off.
  template <typename Take>
  Task<int64_t> TakeWhenReady(SimThread& thread, Take take) {
    StartWorkers();
    while (true) {
      const int64_t n = take();
      if (n > 0) {
        if (HasResumeRoom()) room_.NotifyAll();
        co_await TakeOver(thread, handoffs_, n);
        co_return n;
      }
      if (slots_.empty() && input_end_ && fetching_ == 0) co_return 0;
      if (cancelled_) co_return 0;
      handoffs_.TakerWaits(true);
      co_await output_.Wait();
      handoffs_.TakerWaits(false);
    }
  }

  // Finished elements, in order (deterministic: only the leading finished groups), until
  // `max_rows` rows (at least one element), handed to `out(first, count)` a group's part at
  // a time; the number taken. With `whole`, a group that fits is handed to it instead, as
  // whole(group).
  template <typename Out, typename Whole = std::nullptr_t>
  int64_t TakeReady(int64_t max_rows, Out out, Whole whole = nullptr) {
    max_rows = std::max<int64_t>(1, max_rows);
    int64_t n = 0, rows = 0;
    for (auto it = slots_.begin(); it != slots_.end() && rows < max_rows;) {
      const engine::HandOut step = engine::HandOutInFlight(it->done, deterministic_);
      if (step == engine::HandOut::kStop) break;  // the oldest is not done: wait for it
      if (step == engine::HandOut::kSkip) {
        ++it;
        continue;
      }
      Group& g = *it;
      const size_t size = g.elements.size();
      if constexpr (!std::is_same_v<Whole, std::nullptr_t>) {
        if (g.taken == 0 && rows + g.totals.rows <= max_rows) {
          whole(g);
          g.taken = size;
          rows += g.totals.rows;
          n += static_cast<int64_t>(size);
        }
      }
      const size_t from = g.taken;
      while (g.taken < size && rows < max_rows) rows += g.elements[g.taken++].rows;
      if (g.taken > from) {
        out(g.elements.data() + from, g.taken - from);
        n += static_cast<int64_t>(g.taken - from);
      }
      if (g.taken < size) break;
      auto done = it++;
      held_ -= static_cast<int64_t>(size);
      free_.splice(free_.end(), slots_, done);  // kept for reuse: no allocation per group
    }
    done_count_ -= n;
    return n;
  }

  // TakeReady's elements as totals. The trace's run needs the ids only: `first_id` while
  // they are consecutive, else every id in `elements`.
  int64_t TakeReadyTotals(int64_t max_rows, SimRunTotals& totals, std::vector<SimElement>& elements,
                          uint64_t& first_id) {
    uint64_t next_id = 0;  // the id that would continue the run so far; 0: none yet
    bool listed = false;   // the ids are in `elements`, not first_id
    auto add_ids = [&](const SimElement* e, size_t count, bool consecutive) {
      if (!listed && consecutive && (next_id == 0 || e[0].id == next_id)) {
        if (next_id == 0) first_id = e[0].id;
        next_id = e[0].id + count;
        return;
      }
      if (!listed) {  // the run broke: list what first_id stood for, then list the rest
        for (uint64_t id = first_id; id < next_id; ++id) elements.push_back(SimElement{id});
        first_id = 0;
        listed = true;
      }
      elements.insert(elements.end(), e, e + count);
    };
    return TakeReady(
        max_rows,
        [&](const SimElement* e, size_t count) {
          totals.Add(e, count);
          add_ids(e, count, IdsAreConsecutive(e, count));
        },
        [&](const Group& g) {
          totals.Add(g.totals);
          add_ids(g.elements.data(), g.elements.size(), g.consecutive);
        });
  }

  // One pass over a fetched group (it has elements): the function's output size on each
  // (when the cost model gives one), the group's totals, whether its ids are consecutive.
  // Three passes cost chess_unpack's simulation 22 instructions an element.
  static void Summarize(Group& group, int64_t out_bytes) {
    SimElement* e = group.elements.data();
    const size_t n = group.elements.size();
    const uint64_t first = e[0].id;
    int64_t rows = 0, bytes = 0;
    int32_t longest = 1;
    uint64_t mismatch = 0;
    for (size_t k = 0; k < n; ++k) {
      if (out_bytes > 0) e[k].bytes = out_bytes * e[k].rows;  // out_bytes a row
      rows += e[k].rows;
      bytes += e[k].bytes;
      longest = std::max(longest, e[k].length);
      mismatch |= e[k].id - (first + k);
    }
    group.totals = SimRunTotals{rows, bytes, e[n - 1].key, longest};
    group.consecutive = mismatch == 0;
  }

  void StartWorkers() {
    if (started_) return;
    started_ = true;
    for (int64_t i = 0; i < parallelism_; ++i) {
      SimThread& t = ctx_.NewThread(stage_.name + "/" + std::to_string(i));
      scheduler().Spawn(Worker(t));
    }
  }

  int64_t Occupied() const { return held_ + fetching_; }
  // Whether a worker stopped for lack of room may take a group (the engine's rule).
  bool HasResumeRoom() const {
    const int64_t capacity = Capacity();
    return capacity - Occupied() >=
           engine::ParallelMapResumeRoom(function_ns_, capacity, parallelism_);
  }

  Task<void> Worker(SimThread& thread) {
    Groups mine;  // the group being fetched, before it joins slots_
    while (true) {
      const int64_t wait_start = now();
      bool waited = false;
      while (!cancelled_ && !input_end_ && !HasResumeRoom()) {
        waited = true;
        co_await room_.Wait();
      }
      if (cancelled_ || input_end_) co_return;
      if (waited) ctx_.trace->Span(EventKind::kBlocked, stage_.id, thread, wait_start, now());
      const int64_t k =
          engine::ParallelMapGroupSize(function_ns_, Capacity(), Occupied(), parallelism_);
      fetching_ += k;
      const int64_t fetch_start = now();
      while (input_busy_ && !cancelled_) co_await input_free_.Wait();
      if (cancelled_) co_return;
      input_busy_ = true;
      if (free_.empty()) free_.emplace_back();
      mine.splice(mine.end(), free_, free_.begin());
      Group& group = mine.front();
      group.elements.clear();
      group.taken = 0;
      group.done = false;
      bool end = false;
      while (static_cast<int64_t>(group.elements.size()) < k) {
        const int64_t left = k - static_cast<int64_t>(group.elements.size());
        const int64_t got = co_await input_->GetNextRun(thread, left, group.elements);
        if (got == 0) {
          end = true;
          break;
        }
      }
      input_busy_ = false;
      input_free_.NotifyAll();
      fetching_ -= k;
      const auto n = static_cast<int64_t>(group.elements.size());
      if (end) {
        input_end_ = true;
        output_.NotifyAll();
        room_.NotifyAll();
      }
      if (n == 0) {
        free_.splice(free_.end(), mine, mine.begin());
        ctx_.trace->Span(EventKind::kWaitInput, stage_.id, thread, fetch_start, now());
        co_return;
      }
      held_ += n;
      slots_.splice(slots_.end(), mine, mine.begin());  // in input order: fetched under the lock
      const int64_t fetched_at = now();
      if (stage_.shape_output) {
        for (SimElement& e : group.elements) stage_.shape_output(e);
      }
      Summarize(group, stage_.cost->out_bytes);
      const int64_t rows = group.totals.rows;
      // The hand-off and the function run back to back on this thread with nothing between
      // them another thread could see: one burst of CPU (one wake-up, not two), and the
      // trace's boundary between them placed at the hand-off's share of it.
      const int64_t handoff_cpu = HandOnNs(handoffs_, n);
      const int64_t work_cpu = CpuCostOfRun(n, rows);
      const int64_t wait = WaitCostOfRun(n);
      const bool under_lock = stage_.cost->gil_share > 0;
      const int64_t locked = under_lock ? LockedShare(work_cpu) : 0;
      const int64_t read = co_await ChargeCalls(thread, n, under_lock, locked,
                                                handoff_cpu + work_cpu - locked, wait);
      const double cpu_wall = static_cast<double>(now() - wait - read - fetched_at);
      const int64_t work_start =
          fetched_at +
          static_cast<int64_t>(cpu_wall * static_cast<double>(handoff_cpu) /
                               static_cast<double>(std::max<int64_t>(1, handoff_cpu + work_cpu)));
      ctx_.trace->Span(EventKind::kWaitInput, stage_.id, thread, fetch_start, work_start);
      if (group.consecutive) {
        ctx_.trace->ConsecutiveRun(EventKind::kWork, stage_.id, thread, work_start, now(),
                                   group.elements.front().id, static_cast<uint32_t>(n), 0);
      } else {
        ctx_.trace->Run(EventKind::kWork, stage_.id, thread, work_start, now(),
                        group.elements.data(), group.elements.size(), 0);
      }
      // Measured per element as the engine measures it (its wall time, slicing included).
      function_ns_ = (function_ns_ * 3 + static_cast<double>(now() - work_start) / n) / 4;
      if (HasResumeRoom()) room_.NotifyAll();  // the capacity may have grown
      group.done = true;
      done_count_ += n;
      output_.NotifyAll();
      if (end) co_return;
    }
  }

  const int64_t parallelism_;
  // The function's time per element, averaged as the engine's is; slow until measured.
  double function_ns_ = 1'000'000;
  const bool deterministic_;
  // Callers wait on output_ (a group done), workers on room_ (notified once there is room
  // for a group again); both are notified when the input ends or on Cancel.
  // Two, not one: with one, every group done woke the other workers for nothing.
  Notifier output_;
  Notifier room_;
  Notifier input_free_;     // the input lock released
  HandOffLedger handoffs_;  // from the workers to the consumer
  Groups slots_;            // fetched groups, in input order
  Groups free_;             // groups fully taken, kept for their vectors' capacity
  int64_t held_ = 0;        // elements in slots_ not yet taken
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
    while (buffer_.empty() && !input_end_ && !cancelled_) {
      handoffs_.TakerWaits(true);
      co_await changed_.Wait();
      handoffs_.TakerWaits(false);
    }
    if (buffer_.empty()) co_return false;
    out = buffer_.front();
    buffer_.pop_front();
    changed_.NotifyAll();
    co_await TakeOver(thread, handoffs_);
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
      if (got) co_await HandOn(thread, handoffs_);
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
  HandOffLedger handoffs_;  // from the producer thread to the consumer
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
