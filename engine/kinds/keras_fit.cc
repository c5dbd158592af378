// Keras's model.fit(x=Sequence, workers, use_multiprocessing, max_queue_size): the
// OrderedEnqueuer's batches, made by sequence[i] on threads of the main process or on worker
// processes (engine/runtime/dataloader_rules.h, whose rules it shares with the DataLoader).

#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/runtime/stage_traits.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/field_checker.h"
#include "engine/spec/op_values.h"
#include "engine/work/work_registry.h"
#include "instrumentation/record/trace_sink.h"

namespace pipescope::kinds {
namespace {

constexpr std::string_view kNoAutotune =
    "Keras's fit takes a number; Pipescope's tuners try values";
// fit(workers=0) runs sequence[i] on the training loop's thread; a tuner moves it from 1 up.
constexpr engine::KnobDescription kWorkers{.name = "workers",
                                           .min = 0,
                                           .max = engine::kMaxParallelism,
                                           .tune_min = 1,
                                           .fixed_because = kNoAutotune,
                                           .runs_ahead_unless_zero = true};
constexpr engine::KnobDescription kMaxQueueSize{
    .name = "max_queue_size", .min = 1, .max = 1024, .fixed_because = kNoAutotune};
constexpr std::array kKnobs = {kWorkers, kMaxQueueSize};

void CheckFields(engine::OpFieldCheck& check) {
  const auto& op = static_cast<const spec::KerasFitOp&>(check.params);
  engine::FieldChecker& c = check.checker;
  if (!c.WorkFunction(op.getitem(), check.Nested("getitem"))) {
    check.Fail("getitem", "is required: the Sequence's __getitem__ (python, cpu_work or io_wait)");
  } else if (!engine::WorkFunctionOnlyCosts(op.getitem())) {
    check.Fail("getitem", "must be python, cpu_work, io_wait or identity");
  }
  c.Duration(op, check.where, "worker_startup", op.worker_startup(), false);
  c.Duration(op, check.where, "receive_per_mb", op.receive_per_mb(), false);
  c.Duration(op, check.where, "receive_per_batch", op.receive_per_batch(), false);
}

// Threads running Python hold the main process's interpreter lock; processes hold their own.
// Threads take turns at a generator's next() (DataLoaderRules::one_fetch_at_a_time).
uint32_t TraitsOfFields(const spec::Op& op) {
  const auto& k = op.keras_fit();
  const uint32_t lock = engine::HoldsInterpreterLock(k.getitem()) && !k.use_multiprocessing()
                            ? record::kTraitHoldsInterpreterLock
                            : 0u;
  const uint32_t turns =
      k.generator() && !k.use_multiprocessing() ? record::kTraitOneCallAtATime : 0u;
  return lock | turns | (engine::WorkFunctionWaits(k.getitem()) ? record::kTraitWaits : 0u);
}

constexpr engine::OpKindDescription kKerasFit{
    .kind = "keras_fit",
    .kind_case = spec::Op::kKerasFit,
    .knobs = kKnobs,
    .order = engine::ElementOrder::kKept,
    .ratio = engine::OutputRatio::kOne,
    .parallel_work = engine::ParallelWork::kEnqueuerWorkers,
    .omissible =
        "workers: 1, use_multiprocessing: false, max_queue_size: 10, "
        "worker_startup: 90ms, receive_per_mb: 50us, receive_per_batch: 45us",
    .check_fields = CheckFields,
    .traits_of_fields = TraitsOfFields};

engine::Result<engine::DataLoaderRules> Rules(const engine::PlannedOp& p) {
  return engine::KerasFitRulesOf(p.op->keras_fit(), p.Knob("workers").start,
                                 p.Knob("max_queue_size").start);
}

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  ASSIGN_OR_RETURN(const engine::DataLoaderRules rules, Rules(b.planned));
  engine::DataLoaderFunctions fns;
  ASSIGN_OR_RETURN(fns.getitem, engine::MakeWorkFunction(b.op.keras_fit().getitem(), b.storage));
  engine::TunablePtr workers = b.Knob("workers");
  b.stats->parallelism = workers.get();
  return engine::MakeDataLoaderDataset(b.stats, std::move(b.input), rules, std::move(workers),
                                       b.Knob("max_queue_size"), std::move(fns));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  ASSIGN_OR_RETURN(const engine::DataLoaderRules rules, Rules(b.planned));
  b.SetParallelism(rules.num_workers);
  return sim::MakeSimDataLoader(b.stage, std::move(b.input), rules);
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kKerasFit, Engine, Sim);

}  // namespace pipescope::kinds
