#pragma once
// What an op does to element values, in the engine's own functions, registered by the kind's
// file (engine/kinds/op_kind_registration.h). The simulator's elements carry no data; it
// replays these rules over its run's lineage (engine/sim/sim_values.h) to show the values
// the engine's elements would hold. Ops that pass elements on unchanged, batch by stacking
// or unbatch into rows need no rule: those are the same for every kind with that ratio.

#include <functional>

#include "engine/core/element.h"
#include "engine/spec/kind_registry.h"
#include "engine/spec/pipeline_plan.h"

namespace pipescope::engine {

struct ValueRule {
  // A one-to-one op that makes new values (a map): what it does to each element.
  std::function<Status(Element&)> apply;
  // An op that makes one element out of several (padded_batch): how each component's rows
  // are combined; stacked where unset.
  CombineComponent combine;
  // An op that pairs each element with one of a second pipeline's (zip): the pair.
  std::function<Result<Element>(Element first, const Element& second)> pair;
};

using ValueRuleFactory = Result<ValueRule> (*)(const PlannedOp& planned);

// Filled at start-up by kinds whose values need a rule; ValueRules::Of(kind) is null for the
// others.
using ValueRules = KindRegistry<ValueRuleFactory>;

}  // namespace pipescope::engine
