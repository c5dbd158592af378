#pragma once
// A Python generator read by Dataset.from_generator runs one next() at a time, on one
// thread. Where a next() waits (a file read, a request: the interpreter lock released, no
// core used), several copies of the generator read at once overlap their waits:
//   tf.data.Dataset.range(k).interleave(
//       lambda i: tf.data.Dataset.from_generator(gen, args=(i, k), output_signature=...),
//       cycle_length=k, num_parallel_calls=k)
// each copy yielding every k-th item (tensorflow#44274's shape). Their Python still takes
// turns under the process's one lock, as the simulator counts it, so a next() that is all
// Python gains nothing (tensorflow#14448: a speed-up only for code that releases the lock):
// k is how many copies it takes to keep the lock busy through the others' waits. The
// generator's signature changes: the user's code (kind parallel_generators).

#include <optional>
#include <string>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct GeneratorShardsChange {
  std::string change;  // the change in a few words
  std::string action;  // for people, with the code to write
  spec::PipelineSpec spec;
};

// Where the source is a from_generator whose next() does not hold the lock all its time (it
// waits, or its Python releases the lock); nullopt elsewhere.
std::optional<GeneratorShardsChange> GeneratorShards(const spec::PipelineSpec& spec);

}  // namespace pipescope::engine
