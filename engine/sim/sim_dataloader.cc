// The simulator's DataLoader (engine/runtime/dataloader_rules.h), traced as the engine's:
// on the caller's thread a kWaitInput with a batch's id around the pulls of its items; a
// worker's kWork per batch and its start-up as a kWork flagged kFlagStartUp; a kReceive per
// batch where the main process receives it (the caller's thread, or the receiver's own: the
// pin-memory thread, Keras's result handler). Each worker thread runs in a process of its own
// (SimThread::process), so its Python work takes no turns with the main process's; Keras's
// threads (rules.threads) run in the caller's and take turns with it.
#include <algorithm>
#include <deque>
#include <memory>
#include <optional>

#include "engine/runtime/batch_rules.h"
#include "engine/sim/sim_ops.h"
#include "engine/sim/sim_unary.h"

namespace pipescope::sim {
namespace {

using record::EventKind;

class DataLoaderIt : public SimUnaryIterator {
 public:
  DataLoaderIt(SimContext& ctx, SimStage& stage, std::unique_ptr<SimIterator> input,
               engine::DataLoaderRules rules)
      : SimUnaryIterator(ctx, stage, std::move(input)),
        rules_(rules),
        queues_(static_cast<size_t>(std::max<int64_t>(0, rules.num_workers))),
        held_(static_cast<size_t>(std::max<int64_t>(0, rules.num_workers)), 0),
        to_work_(*ctx.scheduler),
        delivered_(*ctx.scheduler),
        one_fetch_(*ctx.scheduler),
        dispatch_(rules_) {
    asynchronous_ = rules.num_workers > 0;
  }
  void Cancel() override {
    SimUnaryIterator::Cancel();
    to_work_.NotifyAll();
    delivered_.NotifyAll();
    one_fetch_.released.NotifyAll();
  }
  int64_t BufferLevel() const override { return static_cast<int64_t>(finished_.size()); }

 protected:
  Task<bool> GetNextInternal(SimThread& thread, SimElement& out) override {
    if (rules_.num_workers == 0) {
      const bool fetched = co_await FetchHere(thread, out);
      co_return fetched;
    }
    if (!started_) co_await Start(thread);
    co_await Dispatch(thread);
    Batch* ready = nullptr;
    while (!(ready = Deliverable())) {
      if (cancelled_ || (outstanding_.empty() && input_end_ && copies_left_ == 0)) co_return false;
      if (!rules_.ReceivesOnItsOwnThread() && !arrived_.empty()) {
        // The main process unpickles each batch as it arrives, waiting or not.
        Batch* arrived = arrived_.front();
        arrived_.pop_front();
        co_await Receive(thread, *arrived);
        continue;
      }
      co_await delivered_.Wait();
    }
    std::erase(finished_, ready);
    out = ready->element;
    --held_[static_cast<size_t>(ready->worker)];
    std::erase_if(outstanding_, [&](const auto& b) { return b.get() == ready; });
    co_await Dispatch(thread);  // the DataLoader puts the next indices before it returns
    co_return true;
  }

 private:
  struct Batch {
    int64_t worker = 0;
    SimElement element;
    bool received = false;
  };

  // The items of one batch from the input, on the caller's thread: false where they make
  // no batch (the input ended).
  Task<bool> TakeItems(SimThread& thread, SimElement& batch, int64_t rows_wanted) {
    if (!rules_.stacks) {  // the batch getitem made from one input element, as it is
      SimElement item;
      const bool got = co_await PullInput(thread, item);
      if (!got) {
        input_end_ = true;
        co_return false;
      }
      batch = item;  // its id too: the element it is, for the values replayed over lineage
      // What getitem makes, where the model says, as a stacked batch's (keras#11727: 19 MB
      // batches unpickled by the main process, where an index's 8 bytes cost nothing).
      if (stage_.cost->out_bytes > 0) batch.bytes = stage_.cost->out_bytes * item.rows;
      co_return true;
    }
    SimRunTotals in;
    int64_t items = 0;
    bool ended = false;
    while (items < rows_wanted && !ended) {
      const int64_t n = co_await PullInputRunTotals(thread, rows_wanted - items, in);
      items += n;
      ended = n == 0;
    }
    if (ended) input_end_ = true;
    if (!engine::IsBatch(items, rows_wanted, ended, rules_.drop_last)) co_return false;
    // What getitem makes, where the model says (a row's bytes), else what it was given.
    batch.bytes = stage_.cost->out_bytes > 0 ? stage_.cost->out_bytes * in.rows : in.bytes;
    batch.key = RecordKey(in.last_key, in.rows);
    batch.row_length = in.longest;
    batch.rows = static_cast<int32_t>(in.rows);
    batch.length = static_cast<int32_t>(items);
    co_return true;
  }

  // getitem on each item and collate: CPU, its gil_share under the thread's process's
  // lock, and getitem's waits. A dataset that fetches whole batches is called once: one
  // item's fetch, and the other items' rows gathered into the batch (the cost model's per-row
  // cost is an item's call, whatever the run it was fitted to; the gathering is a copy).
  Task<void> ChargeFetch(SimThread& thread, int64_t rows) {
    const int64_t gathered =
        static_cast<int64_t>(kCopyNsPerByte * static_cast<double>(std::max<int64_t>(0, rows - 1) *
                                                                  stage_.cost->out_bytes));
    const int64_t cpu = rules_.fetch_batches ? CpuCost(1) + gathered : CpuCost(rows);
    const int64_t locked = LockedShare(cpu);
    co_await ChargeCalls(thread, rules_.fetch_batches ? 1 : rows, true, locked, cpu - locked,
                         rules_.fetch_batches ? WaitCost() : WaitCostOfRun(rows));
  }

  // num_workers 0: the main process fetches and collates the batch when asked.
  Task<bool> FetchHere(SimThread& thread, SimElement& out) {
    if (input_end_) co_return false;
    out.id = ctx_.NewElementId();
    // (GCC 12: no co_await in a condition)
    const bool made = co_await TakeItems(thread, out, rules_.batch_size);
    if (!made) co_return false;
    co_await ChargeFetch(thread, out.rows);
    co_return true;
  }

  // Workers start from the caller's thread, one by one: threads in its process (Keras's),
  // or each a process of its own, sent the dataset where it spawns (pickled by the caller,
  // and waited for where StartsOneAtATime).
  Task<void> Start(SimThread& caller) {
    started_ = true;
    const int64_t started_before = stage_.workers_started;
    for (int64_t i = 0; i < rules_.num_workers && !cancelled_; ++i) {
      const bool starts = rules_.Starts(i, started_before);
      const int64_t start = now();  // Process.start(): the pickling of its dataset on
      if (starts && rules_.PickleDatasetNs() > 0) {
        ++ctx_.startups_under_way;  // no stall: the workers' start goes on
        co_await ChargeHoldingLock(caller, rules_.PickleDatasetNs(), 0, 0);
        --ctx_.startups_under_way;
        ctx_.last_startup_end_ns = std::max(ctx_.last_startup_end_ns, now());
      }
      SimThread& t = ctx_.NewThread(stage_.name + "/" + std::to_string(i));
      t.process = rules_.threads ? caller.process : ctx_.NewProcess();
      scheduler().Spawn(Worker(t, i, starts, start));
      if (starts && rules_.StartsOneAtATime()) {
        while (datasets_read_ <= i && !cancelled_) co_await delivered_.Wait();
      }
    }
    if (rules_.ReceivesOnItsOwnThread()) {
      scheduler().Spawn(
          ReceiverThread(ctx_.NewThread(stage_.name + "." + rules_.ReceiverThreadName() + "/0")));
    }
  }

  Task<void> Dispatch(SimThread& thread) {
    while (!cancelled_ && (!input_end_ || copies_left_ > 0) &&
           static_cast<int64_t>(outstanding_.size()) < rules_.Outstanding()) {
      int64_t worker = 0, rows_wanted = 0;
      const engine::BatchDispatch::Next next = dispatch_.Pick(held_, worker, rows_wanted);
      if (next == engine::BatchDispatch::Next::kEpochEnds) input_end_ = true;
      if (next != engine::BatchDispatch::Next::kBatch) break;
      auto batch = std::make_unique<Batch>();
      if (copies_left_ == 0) {
        taken_.id = ctx_.NewElementId();
        const int64_t start = now();
        const bool made = co_await TakeItems(thread, taken_, rows_wanted);
        ctx_.trace->Span(EventKind::kWaitInput, stage_.id, thread, start, now(), taken_.id);
        if (!made) break;
        copies_left_ = rules_.CopiesOfEachBatch();
        batch->element = taken_;
      } else {  // another worker's copy of a replicated dataset's batch
        batch->element = taken_;
        batch->element.id = ctx_.NewElementId();
        ctx_.trace->Span(EventKind::kWaitInput, stage_.id, thread, now(), now(), batch->element.id,
                         record::kCopyOfThePreviousItems);
      }
      --copies_left_;
      batch->worker = worker;
      ++held_[static_cast<size_t>(worker)];
      queues_[static_cast<size_t>(worker)].push_back(batch.get());
      outstanding_.push_back(std::move(batch));
      to_work_.NotifyAll();
    }
  }

  Batch* Deliverable() const {
    if (!rules_.in_order) return finished_.empty() ? nullptr : finished_.front();
    if (outstanding_.empty()) return nullptr;
    Batch* next = outstanding_.front().get();
    return next->received ? next : nullptr;
  }

  // Unpickling a batch from its worker's process, under the main process's interpreter lock
  // (its tensors are in shared memory: nothing to copy).
  Task<void> Receive(SimThread& thread, Batch& batch) {
    // A thread's batch is already in the main process: nothing to unpickle.
    if (!rules_.threads) {
      const int64_t start = now();
      co_await ChargeHoldingLock(thread, rules_.ReceiveNs(batch.element.bytes), 0, 0);
      ctx_.trace->Span(record::EventKind::kReceive, stage_.id, thread, start, now(),
                       batch.element.id);
    }
    batch.received = true;
    finished_.push_back(&batch);
    delivered_.NotifyAll();
  }

  // The front of `queue` (a worker's, or the arrived batches for the receiver's thread),
  // once there is one; null when cancelled.
  Task<Batch*> NextOf(std::deque<Batch*>& queue) {
    while (queue.empty() && !cancelled_) co_await to_work_.Wait();
    if (cancelled_) co_return nullptr;
    Batch* batch = queue.front();
    queue.pop_front();
    co_return batch;
  }

  // Worker `index`, which `starts` (pays its start-up) from Process.start() at `start`.
  Task<void> Worker(SimThread& thread, int64_t index, bool starts, int64_t start) {
    if (starts && rules_.worker_startup_ns + rules_.ReadDatasetNs() > 0) {
      ++ctx_.startups_under_way;
      co_await Charge(thread, rules_.worker_startup_ns, 0);
      // The dataset's unpickling (where it spawns) is Python, under the worker's own lock.
      if (rules_.ReadDatasetNs() > 0)
        co_await ChargeHoldingLock(thread, rules_.ReadDatasetNs(), 0, 0);
      --ctx_.startups_under_way;
      datasets_read_ = std::max(datasets_read_, index + 1);
      delivered_.NotifyAll();
      ctx_.last_startup_end_ns = std::max(ctx_.last_startup_end_ns, now());
      ctx_.trace->Span(EventKind::kWork, stage_.id, thread, start, now(), 0, 0,
                       record::kFlagStartUp);
      if (rules_.persistent_workers) {
        stage_.workers_started = std::max(stage_.workers_started, index + 1);
      }
    }
    auto& queue = queues_[static_cast<size_t>(index)];
    while (true) {
      Batch* batch = co_await NextOf(queue);
      if (!batch) co_return;
      // A generator's next() runs one call at a time: waiting for the others' is no work.
      if (rules_.one_fetch_at_a_time) {
        while (one_fetch_.held && !cancelled_) co_await one_fetch_.released.Wait();
        if (cancelled_) co_return;
        one_fetch_.held = true;
      }
      const int64_t fetch_start = now();
      co_await ChargeFetch(thread, batch->element.rows);
      ctx_.trace->Span(EventKind::kWork, stage_.id, thread, fetch_start, now(), batch->element.id);
      if (rules_.one_fetch_at_a_time) {
        one_fetch_.held = false;
        one_fetch_.released.NotifyAll();
      }
      arrived_.push_back(batch);
      if (rules_.ReceivesOnItsOwnThread()) {
        to_work_.NotifyAll();
      } else {
        delivered_.NotifyAll();
      }
    }
  }

  // The receiver's own thread (pin-memory, result handler): receives each batch as its
  // worker finishes it.
  Task<void> ReceiverThread(SimThread& thread) {
    while (true) {
      Batch* batch = co_await NextOf(arrived_);
      if (!batch) co_return;
      co_await Receive(thread, *batch);  // its kReceive, no kWork, as the engine's
    }
  }

  const engine::DataLoaderRules rules_;
  std::vector<std::deque<Batch*>> queues_;          // each worker's, in order
  std::deque<std::unique_ptr<Batch>> outstanding_;  // in the sampler's order
  std::vector<int64_t> held_;                       // each worker's batches not handed out
  std::deque<Batch*> arrived_;                      // fetched, not yet received
  std::deque<Batch*> finished_;                     // received, in the order they were
  Notifier to_work_;                // a batch for a worker or the receiver's thread; Cancel
  Notifier delivered_;              // a batch ready to hand out, a worker's dataset read; Cancel
  SimLock one_fetch_;               // held around a fetch where one runs at a time; Cancel
  SimElement taken_;                // the last batch of items taken from the input
  int64_t copies_left_ = 0;         // workers still to fetch it (a replicated dataset's)
  engine::BatchDispatch dispatch_;  // the next batch's worker and items
  bool input_end_ = false;
  int64_t datasets_read_ = 0;  // workers 0.. that started have read the dataset (spawn)
  bool started_ = false;
};

}  // namespace

SimDatasetPtr MakeSimDataLoader(SimStage& stage, SimDatasetPtr input,
                                const engine::DataLoaderRules& rules) {
  engine::DataLoaderRules r = rules;
  // A worker process's start as a recorded run measured it (calibrate), where the model has
  // it: from Process.start(), so its dataset's sending (where it spawns) is in it.
  if (!r.threads && stage.cost != nullptr && stage.cost->worker_startup_ns >= 0) {
    r.worker_startup_ns = std::max<int64_t>(
        0, stage.cost->worker_startup_ns - r.PickleDatasetNs() - r.ReadDatasetNs());
  }
  return std::make_shared<SimUnaryDataset<DataLoaderIt, engine::DataLoaderRules>>(
      stage, std::move(input), r);
}

}  // namespace pipescope::sim
