#pragma once
// One registration per op kind, in the kind's own file (engine/kinds/<kind>.cc): its
// description (knobs, traits, field checks: engine/spec/op_kinds.h) and its dataset on
// each clock. Everything else finds the kind through the registries this fills.
//
//   constexpr engine::OpKindDescription kBatch{.kind = "batch", ...};
//   Result<DatasetPtr> Engine(engine::EngineOpBuild& b) { ... }
//   Result<SimDatasetPtr> Sim(sim::SimOpBuild& b) { ... }
//   PIPESCOPE_REGISTER_OP_KIND(kBatch, Engine, Sim);
//
// A kind that makes values of its own, or combines rows otherwise than by stacking, adds
// its value rule (engine/runtime/value_rules.h), which the simulator replays:
//
//   PIPESCOPE_REGISTER_OP_KIND(kMap, Engine, Sim, Values);
//
// The kinds are linked as a whole archive (pipescope_ops in engine/CMakeLists.txt), so
// every file here registers without anything naming it.

#include "engine/runtime/op_factories.h"
#include "engine/runtime/value_rules.h"
#include "engine/sim/sim_op_factories.h"
#include "engine/spec/op_kinds.h"

namespace pipescope::kinds {

inline bool RegisterOpKind(const engine::OpKindDescription& description,
                           engine::EngineOpFactory engine, sim::SimOpFactory sim,
                           engine::ValueRuleFactory values = nullptr) {
  engine::RegisterOpKindDescription(description);
  engine::RegisterEngineOpFactory(description.kind_case, engine);
  sim::RegisterSimOpFactory(description.kind_case, sim);
  if (values) engine::ValueRules::Register(description.kind_case, values);
  return true;
}

}  // namespace pipescope::kinds

#define PIPESCOPE_OP_KIND_CONCAT_(a, b) a##b
#define PIPESCOPE_OP_KIND_NAME_(line) PIPESCOPE_OP_KIND_CONCAT_(pipescope_op_kind_registered_, line)
// One per kind; a file may register a family of kinds (take and skip).
#define PIPESCOPE_REGISTER_OP_KIND(description, engine_factory, sim_factory, ...) \
  [[maybe_unused]] static const bool PIPESCOPE_OP_KIND_NAME_(__LINE__) =          \
      ::pipescope::kinds::RegisterOpKind(description, engine_factory,             \
                                         sim_factory __VA_OPT__(, ) __VA_ARGS__)
