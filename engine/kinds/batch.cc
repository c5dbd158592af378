// Dataset.batch(batch_size, drop_remainder): batch_size consecutive elements stacked into
// one (engine/runtime/batch_rules.h); the last, smaller one kept unless drop_remainder.

#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/runtime/batch_rules.h"
#include "engine/sim/sim_ops.h"

namespace pipescope::kinds {
namespace {

constexpr std::array kKnobs = {
    engine::kBatchSizeKnob,
};

std::optional<int64_t> Elements(const spec::Op& op, int64_t in) {
  return engine::BatchesOf(in, op.batch().batch_size(), op.batch().drop_remainder());
}

constexpr engine::OpKindDescription kBatch{.kind = "batch",
                                           .kind_case = spec::Op::kBatch,
                                           .knobs = kKnobs,
                                           .ratio = engine::OutputRatio::kOneOverBatch,
                                           .addable = true,
                                           .new_op_knob = "batch_size",
                                           .new_op_value = 32,
                                           .elements_out = Elements};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  return engine::MakeBatchDataset(b.stats, std::move(b.input), b.Knob("batch_size"),
                                  b.op.batch().drop_remainder());
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  return sim::MakeSimBatch(b.stage, std::move(b.input), b.planned.Knob("batch_size").start,
                           b.op.batch().drop_remainder());
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kBatch, Engine, Sim);

}  // namespace pipescope::kinds
