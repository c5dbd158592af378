#include "engine/sim/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>

#include "engine/runtime/storage_device.h"
#include "engine/sim/scheduler.h"
#include "engine/sim/sim_builder.h"
#include "engine/sim/sim_ops.h"
#include "engine/sim/sim_trace.h"
#include "engine/spec/op_values.h"
#include "instrumentation/record/sample_periods.h"

namespace pipescope::sim {
namespace {

using record::EventKind;

using record::kCpuSamplePeriodNs;
// The simulator looks at buffer levels this often and records those that changed: the
// recorder's ops record a change at most every record::kLevelMinIntervalNs; 5 ms is as fine
// as a timeline shows for what a simulation costs.
constexpr int64_t kLevelLookPeriodNs = 5'000'000;
constexpr double kStallMarginNs = 10e9;
// The loop checks for the end, a stall and a full trace batch this often (virtual time).
constexpr int64_t kStepNs = 1'000'000;

// The training loop of RunTraining and the simulated device: take an element (the wait
// recorded as kInputWait), run the loop's own Python (the model's loop_python, under the
// interpreter lock), spend the step's host CPU (the model's step_host), queue a step
// on the device (or, training on the CPU, compute it on the loop's thread as HostStep
// does), wait while max_in_flight are queued
// (and resume the model's timer wake-up late, as a thread sleeping on a timer does).
class Consumer {
 public:
  Consumer(SimContext& ctx, SimIterator& root, const spec::PipelineSpec& spec, bool batched,
           const SimulationOptions& options)
      : ctx_(ctx),
        root_(root),
        batched_(batched),
        options_(options),
        max_in_flight_(std::max<int64_t>(1, spec.train_step().max_in_flight())),
        step_on_host_(engine::StepOnHost(spec.train_step())),
        step_rng_(RecordKey(ctx.seed, 0xD5)),
        wake_rng_(RecordKey(ctx.seed, 0xD6)),
        host_rng_(RecordKey(ctx.seed, 0xD7)),
        loop_rng_(RecordKey(ctx.seed, 0xD8)) {}

  Task<void> Run(SimThread& thread) {
    Scheduler& s = *ctx_.scheduler;
    const int64_t deadline =
        options_.duration_s > 0 ? static_cast<int64_t>(options_.duration_s * 1e9) : INT64_MAX;
    co_await s.Sleep(std::min(ctx_.model->startup_ns, deadline));
    while (options_.max_steps <= 0 || steps_ < options_.max_steps) {
      if (s.now() >= deadline) break;
      const int64_t t0 = s.now();
      SimElement e;
      waiting_ = {&thread, t0};
      const bool got = co_await root_.GetNext(thread, e);
      waiting_.thread = nullptr;
      ctx_.trace->Span(EventKind::kInputWait, record::kConsumerOp, thread, t0, s.now(),
                       got ? e.id : 0);
      input_wait_ns_ += s.now() - t0;
      if (!got) {
        end_of_data_ = true;
        break;
      }
      // The loop's own Python (an eager loop's next()), between the steps: the device's
      // idle time, as LoopPythonStep's in a run.
      if (!ctx_.model->loop_python.zero()) {
        co_await ctx_.ChargeHoldingLock(thread, record::kConsumerOp,
                                        ctx_.model->loop_python.Sample(loop_rng_), 0, 0);
      }
      // The step's span starts with its host part, as a profiler's step does.
      const int64_t host_start = std::max(s.now(), device_free_at_);
      if (!ctx_.model->step_host.zero()) {
        const int64_t host_ns = ctx_.model->step_host.Sample(host_rng_);
        const auto locked_ns =
            static_cast<int64_t>(static_cast<double>(host_ns) * ctx_.model->step_host_gil_share);
        if (locked_ns > 0) {
          co_await ctx_.ChargeHoldingLock(thread, record::kConsumerOp, locked_ns,
                                          host_ns - locked_ns, 0);
        } else {
          co_await s.Compute(thread, host_ns);
        }
      }
      int64_t start = std::max(s.now(), device_free_at_);
      if (step_on_host_) {
        // Training on the CPU: the step is the loop's own work on a core, longer in wall
        // time while the pipeline's threads and workers share the cores.
        start = s.now();
        co_await s.Compute(thread, ctx_.model->step.Sample(step_rng_));
        device_free_at_ = s.now();
      } else {
        device_free_at_ = start + ctx_.model->step.Sample(step_rng_);
      }
      busy_ns_ += device_free_at_ - start;
      ctx_.trace->Span(EventKind::kStep, record::kDeviceOp, thread,
                       ctx_.model->step_host.zero() ? start : host_start, device_free_at_, e.id, 0,
                       record::kFlagTimesInNs);
      queued_.push_back(device_free_at_);
      ++steps_;
      elements_ += batched_ ? e.rows : 1;
      while (!queued_.empty() && queued_.front() <= s.now()) queued_.pop_front();
      if (static_cast<int64_t>(queued_.size()) >= max_in_flight_) {
        co_await s.Sleep(queued_.front() - s.now() + ctx_.model->timer_wake.Sample(wake_rng_));
        queued_.pop_front();
      }
    }
    if (device_free_at_ > s.now()) co_await s.Sleep(device_free_at_ - s.now());
    end_ns_ = s.now();
    done_ = true;
  }

  // The figures of the run up to `end_ns` (its end, or where it was cancelled).
  engine::RunSummary Summary(int64_t end_ns) const {
    engine::RunSummary r;
    r.device = step_on_host_ ? "cpu" : "simulated";
    const int64_t wall = std::max<int64_t>(end_ns, 1);
    r.duration_s = static_cast<double>(wall) / 1e9;
    r.steps = steps_;
    r.elements = elements_;
    r.steps_per_s = static_cast<double>(steps_) / r.duration_s;
    r.elements_per_s = static_cast<double>(elements_) / r.duration_s;
    r.input_wait_fraction = static_cast<double>(input_wait_ns_) / static_cast<double>(wall);
    r.device_busy_fraction =
        std::min(1.0, static_cast<double>(busy_ns_) / static_cast<double>(wall));
    r.end_of_data = end_of_data_;
    return r;
  }
  bool done() const { return done_; }
  int64_t end_ns() const { return end_ns_; }
  // A run stopped while the consumer still waits for its next element (stalled, cancelled):
  // that wait, recorded up to `end_ns` as one that brought nothing, so that the run's figures
  // say the consumer waited (a shuffle buffer that never filled: 250 s of waiting, not 0%).
  void EndOpenWait(int64_t end_ns) {
    if (waiting_.thread == nullptr || end_ns <= waiting_.since) return;
    ctx_.trace->Span(EventKind::kInputWait, record::kConsumerOp, *waiting_.thread, waiting_.since,
                     end_ns, 0);
    input_wait_ns_ += end_ns - waiting_.since;
    waiting_.thread = nullptr;
  }

 private:
  struct Waiting {
    SimThread* thread = nullptr;  // null: not waiting for an element
    int64_t since = 0;
  };
  Waiting waiting_;
  SimContext& ctx_;
  SimIterator& root_;
  const bool batched_;
  const SimulationOptions& options_;
  const int64_t max_in_flight_;
  const bool step_on_host_;  // train_step.device: cpu
  Rng step_rng_;
  Rng wake_rng_;
  Rng host_rng_;
  Rng loop_rng_;
  std::deque<int64_t> queued_;  // end times of the steps on the device
  int64_t device_free_at_ = 0;
  int64_t steps_ = 0, elements_ = 0, input_wait_ns_ = 0, busy_ns_ = 0, end_ns_ = 0;
  bool end_of_data_ = false;
  bool done_ = false;
};

// The recorder's sampler: buffer levels of the asynchronous ops and a shuffle's, each thread's CPU
// use and the disk's busy time.
Task<void> Sampler(SimContext& ctx, const std::vector<record::StageDef>& stages,
                   const Consumer& consumer) {
  Scheduler& s = *ctx.scheduler;
  std::vector<int64_t> cpu_seen;
  double storage_seen = 0;
  std::vector<int64_t> recorded(stages.size(), -1);  // the last level recorded per op
  int64_t next_cpu = kCpuSamplePeriodNs;
  while (!consumer.done()) {
    co_await s.Sleep(kLevelLookPeriodNs);
    for (size_t k = 0; k < stages.size(); ++k) {
      const record::StageDef& def = stages[k];
      const SimStage& st = *ctx.stages[def.id];
      if (!st.current) continue;
      const int64_t level = st.current->BufferLevel();
      // A synchronous op records a level once it holds something (a shuffle's buffer filling);
      // one that holds nothing has no buffer to show.
      if (level == recorded[k] || (!def.asynchronous && recorded[k] < 0 && level == 0)) continue;
      recorded[k] = level;
      ctx.trace->Counter(EventKind::kBufferLevel, def.id, 0, s.now(),
                         record::SaturateU32(static_cast<uint64_t>(level)));
    }
    if (s.now() < next_cpu) continue;
    next_cpu += kCpuSamplePeriodNs;
    auto& threads = ctx.trace->threads();
    cpu_seen.resize(threads.size(), 0);
    for (size_t i = 0; i < threads.size(); ++i) {
      const int64_t cpu = s.CpuUsedNs(threads[i]);
      const int64_t used = cpu - cpu_seen[i];
      cpu_seen[i] = cpu;
      ctx.trace->Counter(EventKind::kCpuTime, record::kNoOp, threads[i].id, s.now(),
                         record::SaturateU32(static_cast<uint64_t>(used)));
    }
    if (ctx.storage) {
      const double busy = ctx.storage->BusyNsUntil(s.now());
      ctx.trace->Counter(EventKind::kStorageBusy, record::kNoOp, 0, s.now(),
                         record::SaturateU32(static_cast<uint64_t>(busy - storage_seen)));
      storage_seen = busy;
    }
  }
}

}  // namespace

engine::Result<SimulationResult> Simulate(const spec::PipelineSpec& spec, const CostModel& model,
                                          const SimulationOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  SimTrace trace(options.sinks);
  SimulationResult result;
  Scheduler scheduler(model.cores, model.oversubscription_cost);
  SimContext ctx;
  ctx.scheduler = &scheduler;
  ctx.NewProcess();  // the main process
  ctx.trace = &trace;
  ctx.model = &model;
  ctx.seed = options.seed;
  if (spec.has_storage()) {
    ASSIGN_OR_RETURN(engine::StorageFigures figures, engine::StorageFiguresOf(spec.storage()));
    ctx.storage = std::make_unique<engine::StorageQueue>(figures);
  }
  ASSIGN_OR_RETURN(SimBuild build, BuildSimPipeline(spec, ctx));
  std::unique_ptr<SimIterator> root = build.root->MakeIterator(ctx, nullptr);
  Consumer consumer(ctx, *root, spec, build.batched, options);
  for (const auto& def : build.stages) trace.DefineStage(def);

  scheduler.Spawn(consumer.Run(trace.NewThread("consumer")));
  scheduler.Spawn(Sampler(ctx, build.stages, consumer));

  const double planned_ns = options.duration_s > 0 ? options.duration_s * 1e9 : 0;
  const int64_t period = std::max(kStepNs, options.flush_period_ns);
  int64_t until = 0, flushed_at = 0;
  while (!consumer.done()) {
    until += kStepNs;
    const bool more = scheduler.RunUntil(until);
    if (!more && !consumer.done()) {
      return engine::Internal("simulation stalled at " + std::to_string(scheduler.now()) +
                              " ns: every thread waits on another (a simulator bug)");
    }
    if (until - flushed_at < period && !trace.batch_full()) continue;
    flushed_at = until;
    trace.Flush(std::min(until, consumer.done() ? consumer.end_ns() : until), false);
    // The consumer checks the planned end between elements: one that never comes (a filter
    // dropping everything) would hold the run forever. Workers still starting are no stall:
    // their start-up ends (at most an hour, as the cost model allows), and the margin counts
    // from its end.
    if (planned_ns > 0 && static_cast<double>(until) > 2 * planned_ns + kStallMarginNs &&
        ctx.startups_under_way == 0 &&
        static_cast<double>(until - ctx.last_startup_end_ns) > kStallMarginNs) {
      result.stalled = true;
      break;
    }
    if (options.progress && planned_ns > 0 &&
        !options.progress(std::min(1.0, static_cast<double>(until) / planned_ns))) {
      result.cancelled = true;
      break;
    }
  }
  const int64_t end = consumer.done() ? consumer.end_ns() : scheduler.now();
  if (!consumer.done()) consumer.EndOpenWait(end);
  trace.Flush(end, true);
  result.summary = consumer.Summary(end);
  if (ctx.storage) {
    result.summary.storage_busy_fraction = std::min(
        1.0, ctx.storage->BusyNsUntil(end) / static_cast<double>(std::max<int64_t>(end, 1)));
    result.summary.storage_reads = ctx.storage->reads();
  }
  // The threads' frames point into the iterators: end them while those still exist.
  scheduler.EndThreads();
  result.events = trace.events();
  result.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace pipescope::sim
