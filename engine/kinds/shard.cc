// Dataset.shard(num_shards, index): every num_shards-th element, from the index-th.

#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/field_checker.h"

namespace pipescope::kinds {
namespace {

constexpr std::array kKnobs = {
    engine::KnobDescription{.name = "num_shards",
                            .min = 1,
                            .max = int64_t{1} << 30,
                            .fixed_because = "it is part of the output",
                            .decides_output = true},
    // Its upper bound is num_shards - 1: CheckFields checks the pair.
    engine::KnobDescription{.name = "index",
                            .min = 0,
                            .max = int64_t{1} << 30,
                            .fixed_because = "it is part of the output",
                            .decides_output = true},
};

void CheckFields(engine::OpFieldCheck& check) {
  const auto& s = static_cast<const spec::ShardOp&>(check.params);
  if (s.num_shards() >= 1 && (s.index() < 0 || s.index() >= s.num_shards())) {
    check.Fail("index", "must be in [0, num_shards), got " + std::to_string(s.index()) + " of " +
                            std::to_string(s.num_shards()));
  }
}

// The input's elements whose position is index modulo num_shards.
std::optional<int64_t> Elements(const spec::Op& op, int64_t in) {
  const int64_t n = op.shard().num_shards(), index = op.shard().index();
  if (n < 1) return std::nullopt;
  return in > index ? (in - index + n - 1) / n : 0;
}

constexpr engine::OpKindDescription kShard{.kind = "shard",
                                           .kind_case = spec::Op::kShard,
                                           .knobs = kKnobs,
                                           .ratio = engine::OutputRatio::kCounted,
                                           .splits_among_workers = true,
                                           .addable = true,
                                           .new_op_knob = "num_shards",
                                           .new_op_value = 2,
                                           .check_fields = CheckFields,
                                           .elements_out = Elements};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  return engine::MakeShardDataset(b.stats, std::move(b.input), b.op.shard().num_shards(),
                                  b.op.shard().index());
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  return sim::MakeSimShard(b.stage, std::move(b.input), b.op.shard().num_shards(),
                           b.op.shard().index());
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kShard, Engine, Sim);

}  // namespace pipescope::kinds
