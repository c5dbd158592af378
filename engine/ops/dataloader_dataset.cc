// torch.utils.data.DataLoader over a map-style dataset, or an IterableDataset replicated in
// every worker or split among them (engine/runtime/dataloader_rules.h).
//
// num_workers 0: the caller's thread takes batch_size items, runs getitem on each, stacks
// them and runs collate, as the DataLoader's main process does.
// Workers: the caller's thread (the main process) takes the items of each batch from the
// input and gives the batch to the next worker of the round-robin (DataLoaderRules::
// NextWorker), until prefetch_factor * num_workers batches are outstanding. Each worker is
// a thread running in a Python process of its own (its own interpreter lock); when its
// process starts it burns its start-up CPU (where it spawns, the caller first burns the
// dataset's pickling for it and, the pickle larger than a pipe's buffer, waits until the
// worker has started and burnt its unpickling before starting the next: DataLoaderRules::
// StartsOneAtATime). It fetches its queue's batches in order. The
// receiver (the caller, as batches arrive, or a thread of its own: the pin-memory thread,
// Keras's result handler; DataLoaderRules::receiver) burns
// the unpickling of each batch's bytes under the main process's interpreter lock. The
// caller hands batches out in order (in_order: false, as they were received).
// Keras's enqueuer (rules.threads, !rules.stacks): the workers are threads of the caller's
// process, under its lock, and a batch is the one element getitem made, not unpickled.
//
// Traced as the engine's other asynchronous ops: a worker's kWork per batch (the batch's
// id), its start-up as a kWork flagged kFlagStartUp, and on the caller's thread a
// kWaitInput with the batch's id around the pulls of its items (the batch's rows, for
// lineage); a kReceive per batch where the main process receives it (the caller's thread or
// the receiver's own).
#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <optional>

#include "engine/ops/ops.h"
#include "engine/runtime/async_iterator.h"
#include "engine/runtime/batch_rules.h"
#include "engine/work/cpu_work.h"
#include "engine/work/python_work.h"

namespace pipescope::engine {
namespace {

class DataLoaderDataset : public UnaryDataset {
 public:
  DataLoaderDataset(StatsPtr stats, DatasetPtr input, DataLoaderRules rules, TunablePtr num_workers,
                    TunablePtr prefetch_factor, DataLoaderFunctions fns)
      : UnaryDataset(std::move(stats), std::move(input)),
        rules_(rules),
        num_workers_(std::move(num_workers)),
        prefetch_factor_(std::move(prefetch_factor)),
        fns_(std::move(fns)) {}

  Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const override {
    if (Rules().num_workers == 0) return MakeIteratorOver<MainProcessIt>(*this, args);
    return MakeIteratorOver<WorkersIt>(*this, args);
  }

 private:
  // The rules with the knobs' current values: a change applies from the next epoch, when a
  // DataLoader makes its next iterator.
  DataLoaderRules Rules() const {
    DataLoaderRules r = rules_;
    r.num_workers = num_workers_->value();
    // The second knob is prefetch_factor, or a Keras enqueuer's max_queue_size.
    if (r.queue_size > 0) {
      r.queue_size = prefetch_factor_->value();
    } else {
      r.prefetch_factor = prefetch_factor_->value();
    }
    return r;
  }

  // dataset[i] for each item, stacked, then collate_fn: the batch `id`. A dataset that
  // fetches whole batches gets the batch's indices in one call, which makes every item.
  Status Fetch(std::vector<Element>& items, uint64_t id, CancellationToken& cancellation,
               const std::string& op, Element& batch) const {
    if (rules_.fetch_batches) return FetchWhole(items, id, cancellation, op, batch);
    for (Element& item : items) {
      Status s = fns_.getitem->Apply(item, cancellation);
      if (!s.ok()) {
        return s.WithContext("dataloader '" + op + "' (getitem) on item " +
                             std::to_string(item.id));
      }
    }
    if (!rules_.stacks) {  // Keras: sequence[i] made the batch; it is handed out as it is
      batch = std::move(items.front());  // its id too, as a map's element keeps its own
      return Status::Ok();
    }
    auto stacked = CombineRows(items, id, Tensor::Stack);
    if (!stacked.ok()) return stacked.status().WithContext("dataloader '" + op + "'");
    batch = std::move(stacked).value();
    return Collate(batch, static_cast<int64_t>(items.size()), cancellation, op, id);
  }

  Status FetchWhole(std::vector<Element>& items, uint64_t id, CancellationToken& cancellation,
                    const std::string& op, Element& batch) const {
    auto indices = CombineRows(items, id, Tensor::Stack);
    if (!indices.ok()) return indices.status().WithContext("dataloader '" + op + "'");
    batch = std::move(indices).value();
    const auto rows = static_cast<int64_t>(items.size());
    if (Status s = fns_.getitem->ApplyBatched(batch, rows, cancellation); !s.ok()) {
      return s.WithContext("dataloader '" + op + "' (getitem) on the batch of items " +
                           std::to_string(items.front().id) + "..");
    }
    return Collate(batch, rows, cancellation, op, id);
  }

  Status Collate(Element& batch, int64_t rows, CancellationToken& cancellation,
                 const std::string& op, uint64_t id) const {
    if (!fns_.collate) return Status::Ok();
    Status s = fns_.collate->ApplyBatched(batch, rows, cancellation);
    return s.ok()
               ? s
               : s.WithContext("dataloader '" + op + "' (collate) on batch " + std::to_string(id));
  }

  class MainProcessIt : public UnaryIterator {
   public:
    MainProcessIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
                  const DataLoaderDataset& d)
        : UnaryIterator(ctx, stats, std::move(in)), d_(d), rules_(d.Rules()) {}

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      items_.clear();
      bool input_end = false;
      while (static_cast<int64_t>(items_.size()) < rules_.batch_size) {
        Element e;
        RETURN_IF_ERROR(Pull(e, input_end));
        if (input_end) break;
        items_.push_back(std::move(e));
      }
      if (!IsBatch(static_cast<int64_t>(items_.size()), rules_.batch_size, input_end,
                   rules_.drop_last)) {
        end = true;
        return Status::Ok();
      }
      return d_.Fetch(items_, ctx_.NewElementId(), ctx_.cancellation, stats_->name, out);
    }

   private:
    const DataLoaderDataset& d_;
    const DataLoaderRules rules_;
    std::vector<Element> items_;
  };

  class WorkersIt : public AsyncIterator {
   public:
    WorkersIt(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> in,
              const DataLoaderDataset& d)
        : AsyncIterator(ctx, stats, std::move(in)),
          d_(d),
          rules_(d.Rules()),
          processes_(static_cast<size_t>(rules_.num_workers)),
          queues_(static_cast<size_t>(rules_.num_workers)),
          held_(static_cast<size_t>(rules_.num_workers), 0),
          dispatch_(rules_) {}

    ~WorkersIt() override {
      StopAndJoin();
      receiver_thread_.JoinAll();
    }

   protected:
    Status GetNextInternal(Element& out, bool& end) override {
      if (!started_) Start();
      RETURN_IF_ERROR(Dispatch());
      std::unique_ptr<Batch> batch;
      {
        std::unique_lock lock(mu_);
        while (true) {
          if (cancelled_) return Cancelled();
          if (Batch* ready = DeliverableLocked()) {
            batch = TakeLocked(ready);
            break;
          }
          if (outstanding_.empty() && input_end_ && copies_left_ == 0) {
            end = true;
            return Status::Ok();
          }
          if (!rules_.ReceivesOnItsOwnThread() && !arrived_.empty()) {
            // The main process unpickles each batch as it arrives, waiting or not.
            Batch* arrived = arrived_.front();
            arrived_.pop_front();
            lock.unlock();
            Receive(*arrived);
            lock.lock();
            arrived->received = true;
            finished_.push_back(arrived);
            continue;
          }
          consumer_cv_.wait(lock);
        }
        SetBufferLevel(static_cast<int64_t>(finished_.size()));
      }
      if (!batch->status.ok()) return batch->status;
      out = std::move(batch->element);
      return Dispatch();  // the DataLoader puts the next indices before it returns
    }

   private:
    struct Batch {
      int64_t worker = 0;  // the worker that fetches it
      std::vector<Element> items;
      Element element;
      Status status;
      bool received = false;  // fetched, and unpickled by the main process
    };

    // Starts the workers one by one, as the DataLoader's iterator does: each that starts
    // is sent the dataset where it spawns (pickled here, under the main process's lock).
    void Start() {
      started_ = true;
      const int64_t started_before = d_.workers_started_.load();
      for (int i = 0; i < static_cast<int>(rules_.num_workers); ++i) {
        const bool starts = rules_.Starts(i, started_before);
        // A worker's start-up runs from Process.start(): the pickling of its dataset on.
        const uint64_t start = TicksIfRecording();
        if (starts && rules_.PickleDatasetNs() > 0) {
          const LockWaitsRecordedAs lock_waits(ctx_.recorder, stats_->id);
          const std::unique_lock held = TakeInterpreterLock();
          BurnCpuNs(rules_.PickleDatasetNs(), static_cast<uint64_t>(i));
        }
        std::unique_lock lock(mu_);
        if (cancelled_) return;
        workers_.Grow(i + 1, stats_->name,
                      [this, starts, start](int w) { WorkerLoop(w, starts, start); });
        if (starts && rules_.StartsOneAtATime()) {
          consumer_cv_.wait(lock, [&] { return cancelled_ || datasets_read_ > i; });
        }
      }
      std::lock_guard lock(mu_);
      if (rules_.ReceivesOnItsOwnThread()) {
        receiver_thread_.Grow(1, stats_->name + "." + rules_.ReceiverThreadName(),
                              [this](int) { ReceiverLoop(); });
      }
    }

    // Puts batches of indices to workers until prefetch_factor * num_workers are out (or,
    // with in_order: false, every worker holds prefetch_factor).
    Status Dispatch() {
      while (true) {
        int64_t worker = 0;
        int64_t rows_wanted = 0;
        {
          std::lock_guard lock(mu_);
          if (cancelled_ || (input_end_ && copies_left_ == 0) ||
              static_cast<int64_t>(outstanding_.size()) >= rules_.Outstanding()) {
            return Status::Ok();
          }
          const BatchDispatch::Next next = dispatch_.Pick(held_, worker, rows_wanted);
          if (next == BatchDispatch::Next::kEpochEnds) input_end_ = true;
          if (next != BatchDispatch::Next::kBatch) return Status::Ok();
        }
        auto batch = std::make_unique<Batch>();
        const uint64_t id = ctx_.NewElementId();
        if (copies_left_ > 0) {  // another worker's copy of a replicated dataset's batch
          --copies_left_;
          batch->items = taken_;
          if (ctx_.recorder) {
            const uint64_t now = record::Ticks();
            ctx_.recorder->RecordSpan(record::EventKind::kWaitInput, stats_->id, now, now, id,
                                      record::kCopyOfThePreviousItems);
          }
          std::lock_guard lock(mu_);
          PutLocked(std::move(batch), worker, id);
          continue;
        }
        const uint64_t start = TicksIfRecording();
        bool input_end = false;
        Status input_status;
        while (static_cast<int64_t>(batch->items.size()) < rows_wanted) {
          Element e;
          input_status = Pull(e, input_end);
          if (!input_status.ok() || input_end) break;
          batch->items.push_back(std::move(e));
        }
        RecordSpan(record::EventKind::kWaitInput, start, TicksIfRecording(), id);
        const auto rows = static_cast<int64_t>(batch->items.size());
        std::lock_guard lock(mu_);
        if (input_end || !input_status.ok()) input_end_ = true;
        if (!input_status.ok()) {  // handed out in order, after the batches before it
          batch->status = std::move(input_status);
          batch->received = true;
          batch->worker = -1;
          finished_.push_back(batch.get());
          outstanding_.push_back(std::move(batch));
          consumer_cv_.notify_all();
          return Status::Ok();
        }
        if (!IsBatch(rows, rows_wanted, input_end, rules_.drop_last)) return Status::Ok();
        copies_left_ = rules_.CopiesOfEachBatch() - 1;
        if (copies_left_ > 0) taken_ = batch->items;
        PutLocked(std::move(batch), worker, id);
      }
    }

    // Gives `batch` (element id `id`) to `worker`'s queue.
    void PutLocked(std::unique_ptr<Batch> batch, int64_t worker, uint64_t id) {
      batch->worker = worker;
      batch->element.id = id;
      ++held_[static_cast<size_t>(worker)];
      queues_[static_cast<size_t>(worker)].push_back(batch.get());
      outstanding_.push_back(std::move(batch));
      worker_cv_.notify_all();
    }

    // The batch to hand out now: the next in order, or the first received.
    Batch* DeliverableLocked() const {
      if (rules_.in_order) {
        if (outstanding_.empty()) return nullptr;
        Batch* next = outstanding_.front().get();
        return next->received ? next : nullptr;
      }
      return finished_.empty() ? nullptr : finished_.front();
    }

    std::unique_ptr<Batch> TakeLocked(Batch* batch) {
      std::erase(finished_, batch);
      if (batch->worker >= 0) --held_[static_cast<size_t>(batch->worker)];
      auto it = std::find_if(outstanding_.begin(), outstanding_.end(),
                             [&](const auto& b) { return b.get() == batch; });
      std::unique_ptr<Batch> taken = std::move(*it);
      outstanding_.erase(it);
      return taken;
    }

    // Worker `index`, which `starts` (pays its start-up) from Process.start() at `start`.
    void WorkerLoop(int index, bool starts, uint64_t start) {
      // A worker process runs under its own interpreter lock; a thread (Keras's, without
      // use_multiprocessing) stays in the caller's process, which it inherited.
      std::optional<PythonProcessScope> process;
      if (!rules_.threads) process.emplace(processes_[static_cast<size_t>(index)]);
      const LockWaitsRecordedAs lock_waits(ctx_.recorder, stats_->id);
      if (starts && rules_.worker_startup_ns + rules_.ReadDatasetNs() > 0) {
        // The dataset's unpickling (where it spawns) is Python, under the worker's own lock.
        if (!BurnStartUp(rules_.worker_startup_ns, index, /*python=*/false) ||
            !BurnStartUp(rules_.ReadDatasetNs(), index, /*python=*/true)) {
          return;
        }
        if (ctx_.recorder) {
          ctx_.recorder->RecordSpan(record::EventKind::kWork, stats_->id, start, TicksIfRecording(),
                                    0, 0, record::kFlagStartUp);
        }
        {
          std::lock_guard lock(mu_);
          datasets_read_ = std::max(datasets_read_, index + 1);
        }
        consumer_cv_.notify_all();
        if (rules_.persistent_workers) RaiseStarted(index + 1);
      }
      auto& queue = queues_[static_cast<size_t>(index)];
      while (Batch* batch = NextOf(queue)) {
        // A generator's next() runs one call at a time: waiting for the others' is no work.
        std::unique_lock<std::mutex> turn;
        if (rules_.one_fetch_at_a_time) turn = std::unique_lock(one_fetch_mu_);
        const uint64_t fetch_start = TicksIfRecording();
        batch->status = d_.Fetch(batch->items, batch->element.id, ctx_.cancellation, stats_->name,
                                 batch->element);
        RecordSpan(record::EventKind::kWork, fetch_start, TicksIfRecording(), batch->element.id);
        if (turn.owns_lock()) turn.unlock();
        {
          std::lock_guard lock(mu_);
          arrived_.push_back(batch);
        }
        // The receiver: a thread of its own (it waits with the workers) or the caller.
        if (rules_.ReceivesOnItsOwnThread()) {
          worker_cv_.notify_all();
        } else {
          consumer_cv_.notify_all();
        }
      }
    }

    // Burns `ns` of worker `index`'s start-up in slices, so that a run cancelled during a
    // long start-up ends without it; false once cancelled.
    bool BurnStartUp(int64_t ns, int index, bool python) {
      constexpr int64_t kSliceNs = 1'000'000;
      for (int64_t left = ns; left > 0; left -= kSliceNs) {
        {
          std::unique_lock<std::mutex> held;
          if (python) held = TakeInterpreterLock();
          BurnCpuNs(std::min(left, kSliceNs), static_cast<uint64_t>(index));
        }
        std::lock_guard lock(mu_);
        if (cancelled_) return false;
      }
      return true;
    }

    // The receiver's own thread (pin-memory, result handler): receives each batch as its
    // worker finishes it.
    void ReceiverLoop() {
      while (Batch* batch = NextOf(arrived_)) {
        Receive(*batch);  // its kReceive, no kWork: the workers' busy share is theirs alone
        {
          std::lock_guard lock(mu_);
          batch->received = true;
          finished_.push_back(batch);
        }
        consumer_cv_.notify_all();
      }
    }

    // The front of `queue` (a worker's, or the arrived batches for the receiver's thread),
    // once there is one; null when cancelled.
    Batch* NextOf(std::deque<Batch*>& queue) {
      std::unique_lock lock(mu_);
      worker_cv_.wait(lock, [&] { return cancelled_ || !queue.empty(); });
      if (cancelled_) return nullptr;
      Batch* batch = queue.front();
      queue.pop_front();
      return batch;
    }

    // Unpickling a batch from its worker's process, under the main process's interpreter
    // lock (the batch's tensors are in shared memory: nothing to copy).
    void Receive(const Batch& batch) const {
      if (!batch.status.ok() || rules_.threads) return;  // a thread's batch is here already
      const uint64_t start = TicksIfRecording();
      {
        const LockWaitsRecordedAs lock_waits(ctx_.recorder, stats_->id);
        const std::unique_lock held = TakeInterpreterLock();
        BurnCpuNs(rules_.ReceiveNs(static_cast<int64_t>(batch.element.ByteSize())),
                  batch.element.id);
      }
      RecordSpan(record::EventKind::kReceive, start, TicksIfRecording(), batch.element.id);
    }

    void RaiseStarted(int64_t workers) const {
      int64_t seen = d_.workers_started_.load();
      while (seen < workers && !d_.workers_started_.compare_exchange_weak(seen, workers)) {
      }
    }

    const DataLoaderDataset& d_;
    const DataLoaderRules rules_;
    std::vector<PythonProcess> processes_;
    // Guarded by mu_:
    std::vector<std::deque<Batch*>> queues_;          // each worker's, in order
    std::vector<int64_t> held_;                       // each worker's batches not handed out
    std::deque<std::unique_ptr<Batch>> outstanding_;  // in the sampler's order
    std::deque<Batch*> arrived_;                      // fetched, not yet received
    std::deque<Batch*> finished_;                     // received, in the order they were
    BatchDispatch dispatch_;                          // the next batch's worker and items
    bool input_end_ = false;
    int datasets_read_ = 0;  // workers 0.. that started have read the dataset (spawn)
    bool started_ = false;   // the caller's thread only
    // The caller's thread only: the last batch's items and the workers still to fetch them
    // (a replicated dataset's).
    std::vector<Element> taken_;
    int64_t copies_left_ = 0;
    WorkerThreads receiver_thread_;
    std::mutex one_fetch_mu_;  // held around a fetch where rules_.one_fetch_at_a_time
  };

  const DataLoaderRules rules_;
  TunablePtr num_workers_;
  TunablePtr prefetch_factor_;
  const DataLoaderFunctions fns_;
  // Workers still alive from earlier epochs (persistent_workers): they do not start again.
  mutable std::atomic<int64_t> workers_started_{0};
};

}  // namespace

DatasetPtr MakeDataLoaderDataset(StatsPtr stats, DatasetPtr input, const DataLoaderRules& rules,
                                 TunablePtr num_workers, TunablePtr prefetch_factor,
                                 DataLoaderFunctions fns) {
  if (rules.num_workers > 0) stats->asynchronous = true;
  return std::make_shared<DataLoaderDataset>(std::move(stats), std::move(input), rules,
                                             std::move(num_workers), std::move(prefetch_factor),
                                             std::move(fns));
}

}  // namespace pipescope::engine
