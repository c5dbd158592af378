#pragma once
// A what-if (trace_whatif.h) as a Comparison for the Compare window: the imported trace and
// the prediction's simulated timeline on one time axis, their figures side by side, the
// DataLoader settings that differ, and the assumptions.

#include <memory>

#include "app/session/comparison.h"
#include "app/session/trace_whatif.h"

namespace pipescope::session {

Comparison WhatIfComparison(std::shared_ptr<trace::Model> traced, const WhatIfPrediction& p);

}  // namespace pipescope::session
