// torch.utils.data.DataLoader(dataset, batch_size, num_workers, prefetch_factor,
// persistent_workers, pin_memory, in_order, drop_last): batches of a map-style dataset's
// items, fetched by worker processes (engine/runtime/dataloader_rules.h).

#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/field_checker.h"
#include "engine/work/work_registry.h"

namespace pipescope::kinds {
namespace {

// DataLoader(num_workers=0): the main process; a tuner moves it from 1 up, as processes.
constexpr std::string_view kNoAutotune =
    "PyTorch's DataLoader takes a number; Pipescope's tuners try values";
constexpr engine::KnobDescription kNumWorkers{.name = "num_workers",
                                              .min = 0,
                                              .max = engine::kMaxParallelism,
                                              .tune_min = 1,
                                              .fixed_because = kNoAutotune,
                                              .runs_ahead_unless_zero = true};
constexpr engine::KnobDescription kPrefetchFactor{
    .name = "prefetch_factor", .min = 1, .max = 64, .fixed_because = kNoAutotune};
constexpr std::array kKnobs = {engine::kBatchSizeKnob, kNumWorkers, kPrefetchFactor};

void CheckFields(engine::OpFieldCheck& check) {
  const auto& op = static_cast<const spec::DataLoaderOp&>(check.params);
  engine::FieldChecker& c = check.checker;
  if (!c.WorkFunction(op.getitem(), check.Nested("getitem"))) {
    check.Fail("getitem", "is required: the dataset's __getitem__ (python, cpu_work or io_wait)");
  } else if (!engine::WorkFunctionOnlyCosts(op.getitem())) {
    // The items' content is the input's: the functions stand for the user's work.
    check.Fail("getitem", "must be python, cpu_work, io_wait or identity");
  }
  if (op.has_collate()) {
    c.WorkFunction(op.collate(), check.Nested("collate"));
    if (!engine::WorkFunctionOnlyCosts(op.collate()))
      check.Fail("collate", "must be python, cpu_work, io_wait or identity");
  }
  c.Duration(op, check.where, "worker_startup", op.worker_startup(), false);
  c.Duration(op, check.where, "receive_per_mb", op.receive_per_mb(), false);
  c.Duration(op, check.where, "receive_per_batch", op.receive_per_batch(), false);
  if (op.fetch_batches() && !op.getitem().has_python()) {
    check.Fail("fetch_batches",
               "needs getitem to be python: a dataset makes a whole batch in one Python call "
               "(__getitems__, or indexing by a list of indices)");
  }
  if (op.worker_split() != spec::not_split && op.replicated()) {
    check.Fail("worker_split",
               "and replicated exclude each other: an IterableDataset's __iter__ either splits "
               "its items among the workers or yields all of them in each");
  }
  if (op.num_workers() == 0 && op.has_prefetch_factor()) {
    check.Fail("prefetch_factor",
               "needs workers: DataLoader refuses prefetch_factor with num_workers=0");
  }
  if (op.num_workers() == 0 && op.persistent_workers()) {
    check.Fail("persistent_workers",
               "needs workers: DataLoader refuses persistent_workers with num_workers=0");
  }
}

// A __getitem__ that blocks beside its work (a database, storage, a sleep) waits in the
// workers; an IterableDataset's items come from its __iter__.
uint32_t TraitsOfFields(const spec::Op& op) {
  const spec::DataLoaderOp& d = op.dataloader();
  uint32_t traits = engine::WorkFunctionWaits(d.getitem()) ? record::kTraitWaits : 0u;
  if (d.replicated() || d.worker_split() != spec::not_split) {
    traits |= record::kTraitIterableDataset;
  }
  if (d.has_in_order() && !d.in_order()) traits |= record::kTraitFirstReady;
  return traits;
}

constexpr engine::OpKindDescription kDataLoader{
    .kind = "dataloader",
    .kind_case = spec::Op::kDataloader,
    .knobs = kKnobs,
    .order = engine::ElementOrder::kKeptIfDeterministic,
    .ratio = engine::OutputRatio::kOneOverBatch,
    .parallel_work = engine::ParallelWork::kWorkerProcesses,
    .omissible =
        "prefetch_factor: 2, in_order: true, worker_startup: 90ms (500ms where workers "
        "spawn: the script and torch imported again), receive_per_mb: "
        "50us, receive_per_batch: 45us, fetch_batches: false, indexes_batches: false, "
        "worker_split: not_split",
    .check_fields = CheckFields,
    .traits_of_fields = TraitsOfFields};

engine::Result<engine::DataLoaderRules> Rules(const engine::PlannedOp& p) {
  return engine::DataLoaderRulesOf(p.op->dataloader(), p.Knob("num_workers").start,
                                   p.Knob("prefetch_factor").start, p.accelerator,
                                   p.input_elements);
}

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  const auto& d = b.op.dataloader();
  ASSIGN_OR_RETURN(const engine::DataLoaderRules rules, Rules(b.planned));
  engine::DataLoaderFunctions fns;
  ASSIGN_OR_RETURN(fns.getitem, engine::MakeWorkFunction(d.getitem(), b.storage));
  if (d.has_collate()) {
    ASSIGN_OR_RETURN(fns.collate, engine::MakeWorkFunction(d.collate()));
  }
  engine::TunablePtr workers = b.Knob("num_workers");
  b.stats->parallelism = workers.get();
  return engine::MakeDataLoaderDataset(b.stats, std::move(b.input), rules, std::move(workers),
                                       b.Knob("prefetch_factor"), std::move(fns));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  ASSIGN_OR_RETURN(const engine::DataLoaderRules rules, Rules(b.planned));
  b.SetParallelism(rules.num_workers);
  return sim::MakeSimDataLoader(b.stage, std::move(b.input), rules);
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kDataLoader, Engine, Sim);

}  // namespace pipescope::kinds
