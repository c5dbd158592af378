// Dataset.interleave(f, cycle_length, block_length, num_parallel_calls, deterministic):
// each input element opens a dataset (per_element with its ops), cycle_length of them read
// at once, block_length elements in turn; with num_parallel_calls, read by workers and
// opened ahead (engine/runtime/interleave_rules.h).

#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/field_checker.h"
#include "engine/spec/op_values.h"
#include "instrumentation/record/trace_sink.h"

namespace pipescope::kinds {
namespace {

constexpr std::array kKnobs = {
    engine::KnobDescription{.name = "cycle_length",
                            .min = 1,
                            .max = 1024,
                            .autotune = true,
                            .starts_at_cpu_budget = true},
    engine::KnobDescription{.name = "block_length",
                            .min = 1,
                            .max = 1 << 20,
                            .fixed_because = "block_length decides the output order",
                            .decides_output = true},
    // tf.data's parallel interleave refuses more workers than inputs in the cycle
    // (parallel_interleave_dataset_op.cc: "num_parallel_calls must less than or equal to
    // cycle_length"); its AUTOTUNE tunes up to the cycle.
    engine::KnobDescription{.name = "num_parallel_calls",
                            .min = engine::kNumParallelCallsKnob.min,
                            .max = engine::kNumParallelCallsKnob.max,
                            .tune_min = engine::kNumParallelCallsKnob.tune_min,
                            .autotune = true,
                            .starts_at_cpu_budget = true,
                            .at_most = "cycle_length",
                            .runs_ahead_unless_zero = true},
};

// tf.data refuses a written 0 for both, in its own words; absent means AUTOTUNE and 1.
void CheckFields(engine::OpFieldCheck& check) {
  const auto& il = static_cast<const spec::InterleaveOp&>(check.params);
  if (il.has_cycle_length() && il.cycle_length() == 0) {
    check.Fail("cycle_length", "must be greater than zero (or AUTOTUNE), got 0");
  }
  if (il.has_block_length() && il.block_length() == 0) {
    check.Fail("block_length", "must be greater than zero, got 0");
  }
}

constexpr engine::OpKindDescription kInterleave{
    .kind = "interleave",
    .kind_case = spec::Op::kInterleave,
    .knobs = kKnobs,
    .order = engine::ElementOrder::kKeptIfDeterministic,
    .ratio = engine::OutputRatio::kPerSubDataset,
    .parallel_work = engine::ParallelWork::kSubPipelines,
    .omissible = "cycle_length: AUTOTUNE; block_length: 1; deterministic: true",
    .check_fields = CheckFields,
    .per_element = [](const spec::Op& op) { return &op.interleave().per_element(); },
    .sub_pipeline = [](const spec::Op& op) { return &op.interleave().ops(); },
    .mutable_sub_pipeline = [](spec::Op& op) { return op.mutable_interleave()->mutable_ops(); },
    .traits_of_fields =
        [](const spec::Op& op) {
          return engine::Deterministic(op.interleave()) ? 0u : uint32_t{record::kTraitFirstReady};
        }};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  const auto& il = b.op.interleave();
  engine::TunablePtr parallel;
  if (il.num_parallel_calls() != 0) {
    parallel = b.Knob("num_parallel_calls");
    b.stats->parallelism = parallel.get();
  }
  return engine::MakeInterleaveDataset(b.stats, std::move(b.input), std::move(b.per_element),
                                       b.Knob("cycle_length"), b.Knob("block_length"), parallel,
                                       engine::Deterministic(il));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  const int64_t parallel = b.planned.Knob("num_parallel_calls").start;
  b.SetParallelism(parallel);
  return sim::MakeSimInterleave(
      b.stage, std::move(b.input), std::move(b.per_element), b.planned.Knob("cycle_length").start,
      b.planned.Knob("block_length").start, parallel, engine::Deterministic(b.op.interleave()));
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kInterleave, Engine, Sim);

}  // namespace pipescope::kinds
