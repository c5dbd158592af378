#pragma once
// What a map's function makes of an element's bytes, where the spec fixes it: the one rule
// the memory advice (engine/tuning/cache_memory.h) and the simulator's cost model share.
// A resize makes float32 [height, width, 3] whatever it was given; a decoded JPEG's size is
// its image's, which the spec does not say.

#include <cstdint>
#include <optional>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// The bytes of each row `fn` gives for `in` bytes taken (nullopt: not known); nullopt where
// the spec does not fix them (a decode, a parse, work whose output is the user's code's:
// cpu_work or Python without output_bytes). A resize's or an output_bytes' size needs no
// `in`.
std::optional<int64_t> BytesAfterWork(const spec::WorkFunction& fn, std::optional<int64_t> in);

}  // namespace pipescope::engine
