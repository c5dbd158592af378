// Dataset.zip((input, second)): each input element paired with the next element of a second
// pipeline (its own source and ops), until either ends; the second's value becomes the
// feature named after its source.

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"

namespace pipescope::kinds {
namespace {

constexpr engine::OpKindDescription kZip{
    .kind = "zip",
    .kind_case = spec::Op::kZip,
    .ratio = engine::OutputRatio::kPaired,
    .sub_pipeline = [](const spec::Op& op) { return &op.zip().ops(); },
    .mutable_sub_pipeline = [](spec::Op& op) { return op.mutable_zip()->mutable_ops(); },
    .second_source = [](const spec::Op& op) { return &op.zip().source(); }};

std::string SecondName(const spec::Op& op) { return op.zip().source().name(); }

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  return engine::MakeZipDataset(b.stats, std::move(b.input), std::move(b.second), SecondName(b.op));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  return sim::MakeSimZip(b.stage, std::move(b.input), std::move(b.second));
}

engine::Result<engine::ValueRule> Values(const engine::PlannedOp& p) {
  engine::ValueRule rule;
  rule.pair = [name = SecondName(*p.op)](engine::Element first, const engine::Element& second) {
    return engine::ZipElements(std::move(first), second, name);
  };
  return rule;
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kZip, Engine, Sim, Values);

}  // namespace pipescope::kinds
