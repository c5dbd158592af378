// Dataset.prefetch(buffer_size): one thread reads ahead into a buffer of buffer_size.

#include <array>

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"

namespace pipescope::kinds {
namespace {

constexpr std::array kKnobs = {
    engine::KnobDescription{
        .name = "buffer_size", .min = 0, .max = 1 << 20, .autotune = true, .autotune_start = 2},
};

constexpr engine::OpKindDescription kPrefetch{.kind = "prefetch",
                                              .kind_case = spec::Op::kPrefetch,
                                              .knobs = kKnobs,
                                              .parallel_work = engine::ParallelWork::kOneProducer,
                                              .addable = true,
                                              .new_op_knob = "buffer_size",
                                              .new_op_value = 2};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  auto buffer = b.Knob("buffer_size");
  b.stats->buffer_size = buffer.get();
  return engine::MakePrefetchDataset(b.stats, std::move(b.input), buffer);
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  const int64_t buffer = b.planned.Knob("buffer_size").start;
  b.Def().asynchronous = true;
  b.Def().buffer_size = buffer;
  return sim::MakeSimPrefetch(b.stage, std::move(b.input), buffer);
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kPrefetch, Engine, Sim);

}  // namespace pipescope::kinds
