// Dataset.repeat(count): the input count times, a new pass each time; forever when count
// is absent or -1 (engine/runtime/counting_rules.h).

#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"

namespace pipescope::kinds {
namespace {

constexpr std::array kKnobs = {
    engine::KnobDescription{.name = "count",
                            .min = -1,
                            .max = INT64_MAX,
                            .fixed_because = "use -1 (or leave count out) for forever",
                            .decides_output = true},
};

constexpr engine::OpKindDescription kRepeat{.kind = "repeat",
                                            .kind_case = spec::Op::kRepeat,
                                            .knobs = kKnobs,
                                            .ratio = engine::OutputRatio::kTimesCount,
                                            .omissible = "count: forever",
                                            .addable = true};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  return engine::MakeRepeatDataset(b.stats, std::move(b.input), b.planned.Knob("count").start);
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  return sim::MakeSimRepeat(b.stage, std::move(b.input), b.planned.Knob("count").start);
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kRepeat, Engine, Sim);

}  // namespace pipescope::kinds
