#pragma once
// The simulator's ops, shaped like the engine's: an immutable SimDataset per op makes
// SimIterators; GetNext is a coroutine that runs on the calling simulated thread, charges
// the op's costs to it and records the same kCall span the engine's Iterator::GetNext
// records (self time without the input's, end of sequence as kCallEnd).

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/runtime/cache_rules.h"
#include "engine/runtime/storage_requests.h"
#include "engine/runtime/storage_rules.h"
#include "engine/sim/cost_model.h"
#include "engine/sim/scheduler.h"
#include "engine/sim/sim_element.h"
#include "engine/sim/sim_trace.h"
#include "engine/sim/task.h"

namespace pipescope::sim {

// Who pays for passing elements between threads, one per asynchronous op. The cost is
// mostly the wake-up of a side that slept waiting for the other (futex sleeps, context
// switches): in a recorded run the CPU that no op's work explains sits on the waiting
// thread (py_function_small's prefetch thread at 58% of a core, of which its batch's work
// is 0.4%), and the giver pays its call that wakes the taker. So where the taker waits for
// the elements it is handed (it waits now, or it waited for its last take: a giver that
// charges its share as it starts on an element asks before the taker is back to waiting),
// the giver pays handoff_giver_ns and the taker the rest; elsewhere each side pays half.
// Every hand-off costs handoff_ns in all.
class HandOffLedger {
 public:
  // While the taking side waits for an element.
  void TakerWaits(bool waiting) {
    taker_waiting_ = waiting;
    waited_for_this_take_ |= waiting;
  }
  // The giving side's CPU for handing on `elements`.
  int64_t Give(const CostModel& model, int64_t elements) {
    if (!taker_waiting_ && !last_take_waited_) return elements * Half(model);
    owed_ += elements;
    return elements * Giver(model);
  }
  // The taking side's CPU for taking `elements`: half of each, and what the giver left of
  // its half to the taker.
  int64_t Take(const CostModel& model, int64_t elements) {
    last_take_waited_ = std::exchange(waited_for_this_take_, false);
    const int64_t waking = std::min(owed_, elements);
    owed_ -= waking;
    return elements * Half(model) + waking * (model.handoff_ns - Half(model) - Giver(model));
  }

 private:
  static int64_t Half(const CostModel& m) { return m.handoff_ns / 2; }
  static int64_t Giver(const CostModel& m) {
    return m.handoff_giver_ns < 0 ? Half(m) : std::min(m.handoff_giver_ns, m.handoff_ns);
  }

  bool taker_waiting_ = false;
  bool waited_for_this_take_ = false;
  bool last_take_waited_ = false;
  int64_t owed_ = 0;  // elements handed on while the taker waited, not yet taken
};

class SimIterator;

// What a batch needs of the elements it takes: their rows and bytes, the last one's key
// (its own key derives from it).
struct SimRunTotals {
  int64_t rows = 0;
  int64_t bytes = 0;
  uint64_t last_key = 0;
  int32_t longest = 1;  // the largest length among them (how long a batch's rows are)
  // n elements in a row: one pass, the sums in registers (a group or a source's run).
  void Add(const SimElement* elements, size_t n) {
    if (n == 0) return;
    int64_t r = 0, b = 0;
    int32_t l = longest;
    for (size_t k = 0; k < n; ++k) {
      r += elements[k].rows;
      b += elements[k].bytes;
      l = std::max(l, elements[k].length);
    }
    rows += r;
    bytes += b;
    longest = l;
    last_key = elements[n - 1].key;
  }
  void Add(const SimRunTotals& later) {  // a run that follows this one
    rows += later.rows;
    bytes += later.bytes;
    longest = std::max(longest, later.longest);
    last_key = later.last_key;
  }
};

// One op of the simulated pipeline: its trace id and costs.
struct SimStage {
  uint16_t id = 0;
  std::string name;
  std::string kind;
  int depth = 0;
  const OpCost* cost = nullptr;
  DistSampler cpu, cpu_per_row, wait;  // cost's, ready for a draw per element
  DistSampler request_wait;            // per storage request (cost's request_bytes)
  Rng rng{0};
  SimIterator* current = nullptr;  // the latest iterator made (for buffer-level samples)
  // What the op carries from one pass over it to the next, per run as the engine keeps it:
  // the passes begun (a shuffle's or list_files' order per pass) and a cache's contents.
  // Here, beside the run's other state, so a SimDataset stays immutable.
  uint64_t passes = 0;
  engine::PassCache<SimElement> cache;
  int64_t workers_started = 0;  // a DataLoader's persistent workers alive from earlier passes
  // What the op's function makes of an element's shape, where that depends on the number
  // the element holds and the simulator knows it (tf.fill([x], x) is x long); null
  // otherwise. Set by the op's factory, applied by its iterators to each element.
  std::function<void(SimElement&)> shape_output;
};

// A lock of the simulated program, one holder at a time, the others waiting for its release:
// a Python process's interpreter lock (CPython's GIL), which Python work holds for its cost's
// gil_share of its CPU; a generator's, around each next() of Keras's threads.
struct SimLock {
  explicit SimLock(Scheduler& s) : released(s) {}
  bool held = false;
  Notifier released;
};

// What every iterator of one simulation shares.
struct SimContext {
  Scheduler* scheduler = nullptr;
  SimTrace* trace = nullptr;
  const CostModel* model = nullptr;
  uint64_t seed = 1;
  uint64_t next_id = 1;
  // Iterators replaced while the run goes on (a repeat's next epoch, an interleave's next
  // file): kept until the end, because their threads may still be suspended inside them.
  std::vector<std::unique_ptr<SimIterator>> retired;
  std::vector<std::unique_ptr<SimStage>> stages;
  // One per Python process: [0] the main one's, then each worker process's (NewProcess).
  std::vector<std::unique_ptr<SimLock>> interpreter_locks;
  // Worker processes starting now (a DataLoader's at each epoch's start), and when the last
  // start-up ended: while one starts, and for a while after, a run that gives the step
  // nothing is waiting on a start-up it knows will end, not stalled (mmpose#923's workers
  // took 180 s an epoch).
  int startups_under_way = 0;
  int64_t last_startup_end_ns = 0;
  // The spec's disk, which every op's reads of files share (engine/runtime/storage_rules.h);
  // null: the spec has none. `files_read` numbers the files read from it.
  std::unique_ptr<engine::StorageQueue> storage;
  uint64_t files_read = 0;

  uint64_t NewElementId() { return next_id++; }
  uint64_t NewElementIds(int64_t n) {  // n consecutive ids; the first
    const uint64_t first = next_id;
    next_id += static_cast<uint64_t>(n);
    return first;
  }
  SimThread& NewThread(std::string name) { return trace->NewThread(std::move(name)); }
  // A new worker process with its own interpreter lock; its number for SimThread::process.
  int NewProcess() {
    interpreter_locks.push_back(std::make_unique<SimLock>(*scheduler));
    return static_cast<int>(interpreter_locks.size()) - 1;
  }
  SimLock& InterpreterLockOf(const SimThread& thread) {
    return *interpreter_locks[static_cast<size_t>(thread.process)];
  }
  // `locked_ns` of CPU on `thread` holding its process's interpreter lock (waiting first,
  // recorded as a lock wait of `op`, while another thread holds it), then `free_ns` of CPU
  // and `wait_ns` blocked.
  Task<void> ChargeHoldingLock(SimThread& thread, int op, int64_t locked_ns, int64_t free_ns,
                               int64_t wait_ns);
  void Retire(std::unique_ptr<SimIterator> it);
};

class SimIterator {
 public:
  SimIterator(SimContext& ctx, SimStage& stage) : ctx_(ctx), stage_(stage) { stage.current = this; }
  virtual ~SimIterator() = default;
  SimIterator(const SimIterator&) = delete;
  SimIterator& operator=(const SimIterator&) = delete;

  // The next element into `out`; false at the end of the sequence. Each of the three calls
  // adds its time to *input_ns when given (the calling op's count of its input's time).
  Task<bool> GetNext(SimThread& thread, SimElement& out, int64_t* input_ns = nullptr);
  // The next elements, appended to `out`, in one call: what GetNext would give, one after
  // another, until `max_rows` rows came (at least one element). Ops that can hand out
  // several for the cost of one wake-up (sources, maps, a parallel map's finished results)
  // do, and the trace has one kCall for them all, a run (record::TraceEvent::calls); the
  // others hand out one. This is what keeps cheap, many-element pipelines (a million
  // elements a second) fast to simulate. Returns how many were appended; 0 at the end.
  Task<int64_t> GetNextRun(SimThread& thread, int64_t max_rows, std::vector<SimElement>& out,
                           int64_t* input_ns = nullptr);
  // GetNextRun for a caller that needs only the totals (a batch), added to `totals`: a
  // source gives them without making a thousand elements it would then sum. The same
  // elements, costs and trace as GetNextRun.
  Task<int64_t> GetNextRunTotals(SimThread& thread, int64_t max_rows, SimRunTotals& totals,
                                 int64_t* input_ns = nullptr);
  // Stops this iterator's threads (they end at their next wake-up) and its inputs'.
  virtual void Cancel() { cancelled_ = true; }
  // Elements held in the op's buffer (asynchronous ops' output, a shuffle's).
  virtual int64_t BufferLevel() const { return 0; }
  const SimStage& stage() const { return stage_; }

 protected:
  virtual Task<bool> GetNextInternal(SimThread& thread, SimElement& out) = 0;
  // GetNextRun's op part; by default one element.
  virtual Task<int64_t> GetNextRunInternal(SimThread& thread, int64_t max_rows,
                                           std::vector<SimElement>& out);
  // GetNextRunTotals's op part; by default GetNextRunInternal's elements (left in
  // `elements` for the trace), summed. An op whose run is of consecutive ids may set
  // `first_id` instead and make no elements.
  virtual Task<int64_t> GetNextRunTotalsInternal(SimThread& thread, int64_t max_rows,
                                                 SimRunTotals& totals,
                                                 std::vector<SimElement>& elements,
                                                 uint64_t& first_id);
  // GetNextInternal for an op whose GetNextRunInternal does the work: a run of one.
  Task<bool> OneOfRun(SimThread& thread, SimElement& out);
  // Pulls from `input` on `thread`, counting the time as the input's (not this op's self).
  Task<bool> Pull(SimIterator& input, SimThread& thread, SimElement& out) {
    return input.GetNext(thread, out, &input_ns_);
  }
  Task<int64_t> PullRun(SimIterator& input, SimThread& thread, int64_t max_rows,
                        std::vector<SimElement>& out) {
    return input.GetNextRun(thread, max_rows, out, &input_ns_);
  }
  Task<int64_t> PullRunTotals(SimIterator& input, SimThread& thread, int64_t max_rows,
                              SimRunTotals& totals) {
    return input.GetNextRunTotals(thread, max_rows, totals, &input_ns_);
  }
  // A run of `calls` calls of the op's function: `locked_ns` of CPU under the interpreter
  // lock where `under_lock`, `free_ns` of CPU, then `wait_ns` blocked. Where the function
  // reads files from the spec's disk (OpCost::read_bytes), each call reads its own before its
  // share of the rest, load then decode as the engine's calls run, so that threads working
  // side by side ask the disk as they go rather than in one burst a run (which queues them
  // all for its channel at once). The time spent waiting for the disk: 0 where the spec has
  // none or the function reads nothing from it.
  Task<int64_t> ChargeCalls(SimThread& thread, int64_t calls, bool under_lock, int64_t locked_ns,
                            int64_t free_ns, int64_t wait_ns);
  // Charges the op's time: `cpu_ns` on a core, then `wait_ns` blocked.
  Scheduler::ComputeAwaiter Charge(SimThread& thread, int64_t cpu_ns, int64_t wait_ns) {
    return scheduler().Compute(thread, cpu_ns, wait_ns);
  }
  // Charge for a function whose cost holds the interpreter lock (a gil_share): `locked_ns`
  // of CPU holding it (waiting first while another thread does), then `free_ns` of CPU and
  // `wait_ns` blocked.
  Task<void> ChargeHoldingLock(SimThread& thread, int64_t locked_ns, int64_t free_ns,
                               int64_t wait_ns);
  // The share of `cpu_ns` a function of this op runs under the interpreter lock.
  int64_t LockedShare(int64_t cpu_ns) const {
    return static_cast<int64_t>(static_cast<double>(cpu_ns) * stage_.cost->gil_share);
  }
  // The op's per-element costs for an element of `rows` rows.
  int64_t CpuCost(int64_t rows) {
    return stage_.cpu.Sample(stage_.rng) + stage_.cpu_per_row.Sample(stage_.rng) * rows;
  }
  int64_t WaitCost() { return stage_.wait.Sample(stage_.rng); }
  // The same costs summed over n elements of `rows` rows in all, drawn at once.
  int64_t CpuCostOfRun(int64_t n, int64_t rows) {
    if (n <= 0) return 0;
    const int64_t per_row = stage_.cpu_per_row.SampleSum(stage_.rng, n);
    return stage_.cpu.SampleSum(stage_.rng, n) + per_row * rows / n;
  }
  int64_t WaitCostOfRun(int64_t n) { return stage_.wait.SampleSum(stage_.rng, n); }
  // A source's storage requests that records [first, first + n) start, each waited for
  // (engine/runtime/storage_requests.h); 0 where its storage has no requests.
  int64_t RequestWaitOf(int64_t first, int64_t n) {
    const OpCost& c = *stage_.cost;
    if (c.request_bytes <= 0 || c.request_wait.zero()) return 0;
    const int64_t requests =
        engine::RequestsStarted(first, n, std::max<int64_t>(1, c.out_bytes), c.request_bytes);
    int64_t wait = 0;
    // Each drawn apart: a run's requests are few, and their tail is the point.
    for (int64_t r = 0; r < requests; ++r) wait += stage_.request_wait.Sample(stage_.rng);
    return wait;
  }
  // The giving and the taking side's CPU for passing `elements` between threads, as
  // `ledger` shares it out (HandOffLedger).
  int64_t HandOnNs(HandOffLedger& ledger, int64_t elements) {
    return ledger.Give(*ctx_.model, elements);
  }
  Scheduler::ComputeAwaiter HandOn(SimThread& thread, HandOffLedger& ledger, int64_t elements = 1) {
    return scheduler().Compute(thread, HandOnNs(ledger, elements));
  }
  Scheduler::ComputeAwaiter TakeOver(SimThread& thread, HandOffLedger& ledger,
                                     int64_t elements = 1) {
    return scheduler().Compute(thread, ledger.Take(*ctx_.model, elements));
  }
  Scheduler& scheduler() { return *ctx_.scheduler; }
  int64_t now() const { return ctx_.scheduler->now(); }

  SimContext& ctx_;
  SimStage& stage_;
  bool cancelled_ = false;
  bool asynchronous_ = false;  // self time is not recorded for asynchronous ops

 private:
  // A call's self time, [start, end) less what its input took since `input_before`.
  uint64_t SelfTime(int64_t start, int64_t end, int64_t input_before) const {
    const int64_t self = asynchronous_ ? 0 : (end - start) - (input_ns_ - input_before);
    return static_cast<uint64_t>(std::max<int64_t>(0, self));
  }

  // Records a call that gave n elements: `elements`, or n consecutive ids from `first_id`,
  // and adds its time to *input_ns when given.
  void RecordRunCall(SimThread& thread, int64_t start, int64_t input_before, int64_t n,
                     const SimElement* elements, uint64_t first_id, int64_t* input_ns);

  int64_t input_ns_ = 0;  // time spent in calls of the inputs (Pull*), for self times
  std::vector<SimElement> totals_scratch_;  // GetNextRunTotals's elements, when made
  std::vector<SimElement> one_;             // OneOfRun's element
};

class SimDataset {
 public:
  explicit SimDataset(SimStage& stage) : stage_(stage) {}
  virtual ~SimDataset() = default;
  // `parent`: inside an interleave's sub-pipeline, the element it was opened for.
  virtual std::unique_ptr<SimIterator> MakeIterator(SimContext& ctx,
                                                    const SimElement* parent) const = 0;

 protected:
  SimStage& stage_;
};
using SimDatasetPtr = std::shared_ptr<const SimDataset>;

}  // namespace pipescope::sim
