// Dataset.take(count): the first count elements, all of them when count is -1.
// Dataset.skip(count): all but the first count elements, none when count is -1.

#include <algorithm>
#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"

namespace pipescope::kinds {
namespace {

constexpr std::array kKnobs = {
    engine::KnobDescription{.name = "count",
                            .min = -1,
                            .max = INT64_MAX,
                            .fixed_because = "use -1 for all",
                            .decides_output = true},
};

std::optional<int64_t> TakeElements(const spec::Op& op, int64_t in) {
  const int64_t count = op.take().count();
  return count < 0 ? in : std::min(in, count);
}
std::optional<int64_t> SkipElements(const spec::Op& op, int64_t in) {
  const int64_t count = op.skip().count();
  return count < 0 ? 0 : std::max<int64_t>(0, in - count);
}

constexpr engine::OpKindDescription kTake{.kind = "take",
                                          .kind_case = spec::Op::kTake,
                                          .knobs = kKnobs,
                                          .ratio = engine::OutputRatio::kCounted,
                                          .addable = true,
                                          .new_op_knob = "count",
                                          .new_op_value = 1000,
                                          .elements_out = TakeElements};
constexpr engine::OpKindDescription kSkip{.kind = "skip",
                                          .kind_case = spec::Op::kSkip,
                                          .knobs = kKnobs,
                                          .ratio = engine::OutputRatio::kCounted,
                                          .addable = true,
                                          .new_op_knob = "count",
                                          .new_op_value = 100,
                                          .elements_out = SkipElements};

engine::Result<engine::DatasetPtr> TakeEngine(engine::EngineOpBuild& b) {
  return engine::MakeTakeDataset(b.stats, std::move(b.input), b.op.take().count());
}
engine::Result<sim::SimDatasetPtr> TakeSim(sim::SimOpBuild& b) {
  return sim::MakeSimTake(b.stage, std::move(b.input), b.op.take().count());
}
engine::Result<engine::DatasetPtr> SkipEngine(engine::EngineOpBuild& b) {
  return engine::MakeSkipDataset(b.stats, std::move(b.input), b.op.skip().count());
}
engine::Result<sim::SimDatasetPtr> SkipSim(sim::SimOpBuild& b) {
  return sim::MakeSimSkip(b.stage, std::move(b.input), b.op.skip().count());
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kTake, TakeEngine, TakeSim);
PIPESCOPE_REGISTER_OP_KIND(kSkip, SkipEngine, SkipSim);

}  // namespace pipescope::kinds
