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

std::optional<int64_t> Elements(const spec::Op& op, int64_t in) {
  const int64_t count = op.repeat().has_count() ? op.repeat().count() : -1;
  if (count < 0 || (count > 0 && in > INT64_MAX / count)) return std::nullopt;  // forever
  return in * count;
}

constexpr engine::OpKindDescription kRepeat{.kind = "repeat",
                                            .kind_case = spec::Op::kRepeat,
                                            .knobs = kKnobs,
                                            .ratio = engine::OutputRatio::kTimesCount,
                                            .omissible = "count: forever",
                                            .addable = true,
                                            .elements_out = Elements};

// The passes it makes: one where the shuffle before it makes them all (tf.data's
// shuffle_and_repeat fusion, PlannedOp::repeat_fused_into_shuffle).
int64_t Passes(const engine::PlannedOp& planned) {
  return planned.repeat_fused_into_shuffle ? 1 : planned.Knob("count").start;
}

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  return engine::MakeRepeatDataset(b.stats, std::move(b.input), Passes(b.planned));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  return sim::MakeSimRepeat(b.stage, std::move(b.input), Passes(b.planned));
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kRepeat, Engine, Sim);

}  // namespace pipescope::kinds
