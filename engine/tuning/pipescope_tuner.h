#pragma once
// Pipescope's autotuner: measure the pipeline (a short recorded run), compute each
// parallel op's work per training step from the trace, allocate cores by water-filling
// (core_allocation.h), size the final prefetch from the consumer's waits, verify by
// running the new configuration, and repeat until a round gains less than 2%. The
// measuring is the caller's (a recorded run on the real engine, or later the simulator),
// so the tuner itself runs nothing.

#include "engine/tuning/tuner.h"

namespace pipescope::engine {

Result<TunerResult> TunePipescope(const spec::PipelineSpec& spec, const Measurer& measure,
                                  const TunerOptions& options);

}  // namespace pipescope::engine
