// Dataset.flat_map(f): each input element's dataset read to its end before the next one's,
// which is interleave(cycle_length=1) (tf.data's docstring says so), with no knob a tuner
// or the GUI could move.

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"

namespace pipescope::kinds {
namespace {

constexpr engine::OpKindDescription kFlatMap{
    .kind = "flat_map",
    .kind_case = spec::Op::kFlatMap,
    .ratio = engine::OutputRatio::kPerSubDataset,
    .per_element = [](const spec::Op& op) { return &op.flat_map().per_element(); },
    .sub_pipeline = [](const spec::Op& op) { return &op.flat_map().ops(); },
    .mutable_sub_pipeline = [](spec::Op& op) { return op.mutable_flat_map()->mutable_ops(); }};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  auto one = [&](const char* knob) {
    return std::make_shared<engine::Tunable>(b.op.name(), knob, 1, 1, 1, false);
  };
  return engine::MakeInterleaveDataset(b.stats, std::move(b.input), std::move(b.per_element),
                                       one("cycle_length"), one("block_length"), nullptr, true);
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  return sim::MakeSimInterleave(b.stage, std::move(b.input), std::move(b.per_element), 1, 1, 0,
                                true);
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kFlatMap, Engine, Sim);

}  // namespace pipescope::kinds
