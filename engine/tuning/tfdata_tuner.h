#pragma once
// The tfdata autotuner: tf.data's AUTOTUNE (tfdata_model.h) driven the way tf.data drives
// it, on a running pipeline's measurements: model the chain from the trace (self times,
// ratios, the device's time per step), hill-climb, apply, and re-optimise on a fresh
// measurement (tf.data does so on a timer whose period doubles), until the choice no
// longer changes or the budget is spent. As in tf.data, only the knobs the spec leaves to
// AUTOTUNE move; a spec that leaves none has every parallelism and buffer tuned as if it
// were AUTOTUNE, so that both tuners decide the same knobs.

#include "engine/tuning/tuner.h"

namespace pipescope::engine {

Result<TunerResult> TuneTfData(const spec::PipelineSpec& spec, const Measurer& measure,
                               const TunerOptions& options);

}  // namespace pipescope::engine
