// Dataset.unbatch(): every row of each element, in order.

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/field_checker.h"

namespace pipescope::kinds {
namespace {

// tf.data refuses it too ("Input element must have a non-scalar value in each component").
void CheckFields(engine::OpFieldCheck& check) {
  if (check.input_scalars) {
    check.Fail("",
               "takes scalars (each a source's element, with no batch or map that makes "
               "vectors before it), which have no rows to split; remove it or batch first");
  }
}

constexpr engine::OpKindDescription kUnbatch{.kind = "unbatch",
                                             .kind_case = spec::Op::kUnbatch,
                                             .ratio = engine::OutputRatio::kRowsPerElement,
                                             .addable = true,
                                             .check_fields = CheckFields};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  return engine::MakeUnbatchDataset(b.stats, std::move(b.input));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  return sim::MakeSimUnbatch(b.stage, std::move(b.input));
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kUnbatch, Engine, Sim);

}  // namespace pipescope::kinds
