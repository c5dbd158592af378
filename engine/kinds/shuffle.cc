// Dataset.shuffle(buffer_size, seed, reshuffle_each_iteration): a uniformly random element
// of a buffer of buffer_size, refilled from the input (engine/runtime/shuffle_rules.h).
// Followed by a repeat, tf.data fuses the two (PlannedOp::shuffle_passes): the shuffle
// makes the passes.

#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/op_values.h"

namespace pipescope::kinds {
namespace {

constexpr std::array kKnobs = {
    engine::KnobDescription{.name = "buffer_size",
                            .min = 1,
                            .max = int64_t{1} << 30,
                            .fixed_because = "the buffer size decides how random the order is",
                            .decides_output = true},
};

constexpr engine::OpKindDescription kShuffle{
    .kind = "shuffle",
    .kind_case = spec::Op::kShuffle,
    .knobs = kKnobs,
    .order = engine::ElementOrder::kRandom,
    .random = true,
    .omissible = "seed: a fresh seed every run; reshuffle_each_iteration: true",
    .addable = true,
    .new_op_knob = "buffer_size",
    .new_op_value = 1000};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  auto buffer = b.Knob("buffer_size");
  b.stats->buffer_size = buffer.get();
  return engine::MakeShuffleDataset(
      b.stats, std::move(b.input), buffer, engine::ShuffleSeed(b.op.shuffle()),
      engine::ReshufflesEachIteration(b.op.shuffle()), b.planned.shuffle_passes.value_or(1));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  const int64_t buffer = b.planned.Knob("buffer_size").start;
  b.Def().buffer_size = buffer;
  return sim::MakeSimShuffle(
      b.stage, std::move(b.input), buffer, engine::ShuffleSeed(b.op.shuffle()),
      engine::ReshufflesEachIteration(b.op.shuffle()), b.planned.shuffle_passes.value_or(1));
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kShuffle, Engine, Sim);

}  // namespace pipescope::kinds
