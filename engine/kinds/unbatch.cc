// Dataset.unbatch(): every row of each element, in order.

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"

namespace pipescope::kinds {
namespace {

constexpr engine::OpKindDescription kUnbatch{.kind = "unbatch",
                                             .kind_case = spec::Op::kUnbatch,
                                             .ratio = engine::OutputRatio::kRowsPerElement,
                                             .addable = true};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  return engine::MakeUnbatchDataset(b.stats, std::move(b.input));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  return sim::MakeSimUnbatch(b.stage, std::move(b.input));
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kUnbatch, Engine, Sim);

}  // namespace pipescope::kinds
