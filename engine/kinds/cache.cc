// Dataset.cache(): the first complete pass kept in memory, replayed by the passes after it
// (engine/runtime/cache_rules.h).

#include "engine/kinds/op_kind_registration.h"
#include "engine/sim/sim_ops.h"
#include "engine/spec/field_checker.h"

namespace pipescope::kinds {
namespace {

void CheckFields(engine::OpFieldCheck& check) {
  if (check.depth > 0) {
    check.Fail("",
               "cache inside an interleave's ops is not supported; put it after the interleave");
  }
  if (!static_cast<const spec::CacheOp&>(check.params).filename().empty()) {
    check.Fail("filename",
               "file caches are not supported by this build yet; leave it empty to cache in "
               "memory");
  }
}

constexpr engine::OpKindDescription kCache{.kind = "cache",
                                           .kind_case = spec::Op::kCache,
                                           .replays = true,
                                           .addable = true,
                                           .check_fields = CheckFields};

engine::Result<engine::DatasetPtr> Engine(engine::EngineOpBuild& b) {
  return engine::MakeCacheDataset(b.stats, std::move(b.input));
}

engine::Result<sim::SimDatasetPtr> Sim(sim::SimOpBuild& b) {
  return sim::MakeSimCache(b.stage, std::move(b.input));
}

}  // namespace

PIPESCOPE_REGISTER_OP_KIND(kCache, Engine, Sim);

}  // namespace pipescope::kinds
