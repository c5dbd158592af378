#pragma once
// What a cache() without a file name holds: every element of an epoch, in memory, from the
// first epoch on (tf.data's CacheDataset in memory). The advisor offers one only where it
// fits the RAM budget (the spec's budget.ram_bytes, else half this machine's available memory: seed
// 000's 20 GB an epoch is no cache for a worker), says what it holds where the spec tells,
// and says so where the elements' size is not in the spec (a decode's output).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/spec/pipeline_plan.h"

namespace pipescope::engine {

struct CacheHolding {
  std::optional<int64_t> elements;  // an epoch's, where the spec says (cardinality.h)
  std::optional<int64_t> bytes;     // theirs, where each element's size is known too
  // Where it is not: the op after which elements have a size the spec does not say.
  std::string sized_by;
};

// What a cache before the top-level op at `place` would hold (after the source where 0).
CacheHolding HeldByACacheBefore(const PipelinePlan& plan, int place);

// The bytes of each element the top-level op at `place` takes, where the spec says them: the
// source's records, through ops that pass elements on as they are; else the op after which
// the spec does not say (`sized_by`).
struct ElementSize {
  std::optional<int64_t> bytes;
  std::string sized_by;
};
ElementSize ElementBytesBefore(const spec::PipelineSpec& spec, int place);

// What tf.data holds for each element in a buffer beside its values: tensorflow#60599's
// shuffle of 50,000,000 int64 scalars took 10 GB, 200 bytes an element, 8 of them the value.
inline constexpr int64_t kHeldElementOverheadBytes = 192;

// The memory `elements` of `element_bytes` each take in a buffer (a shuffle's, a cache's),
// with the overhead of each; saturating far past any machine's memory.
int64_t BytesHeld(int64_t elements, int64_t element_bytes);

// "70000 elements of 2 MB", or where what tf.data keeps beside each element's values is a
// tenth of it or more, "100000000 elements of 200 B (392 B held each)".
std::string ElementsText(int64_t elements, int64_t element_bytes);

// The largest buffer, a power of two, whose elements of `element_bytes` take at most a
// quarter of `ram_budget` (the rest for the model, the prefetches, the batches); at least 1.
int64_t ShuffleBufferThatFits(int64_t element_bytes, int64_t ram_budget);

// A shuffle whose buffer, full, holds more than a quarter of the RAM budget (what
// ShuffleBufferThatFits leaves it), where its elements' size is known: tf.data fills it before
// its first element comes, and the model, the batches and the prefetches share the rest
// (tensorflow#28759: 1000 decoded images, 30% of the machine). Over half the budget it is
// too large: the machine swaps, or the job is killed, before training starts (models#7725:
// "Filling up shuffle buffer ... 2048", then "Killed").
struct LargeShuffleBuffer {
  int place = 0;       // the shuffle's index in the spec's ops
  int64_t buffer = 0;  // the elements it holds: its buffer_size, or a pass of its input
  int64_t element_bytes = 0;
  int64_t held = 0;  // BytesHeld(buffer, element_bytes)
  bool too_large = false;
};
std::vector<LargeShuffleBuffer> LargeShuffleBuffers(const spec::PipelineSpec& spec,
                                                    int64_t ram_budget);

// For the advice's text: " (an epoch in memory: 20000 elements, 205 MB)", or where the
// size is not known and a budget is set, what to check; "" where nothing is known.
std::string CacheHoldingText(const CacheHolding& held, int64_t ram_budget);

// Whether it is over `ram_budget` (0: none set) by what the spec says.
bool OverTheRamBudget(const CacheHolding& held, int64_t ram_budget);

// The RAM budget a cache must fit: the spec's budget.ram_bytes where set, else
// `machine_bytes` (what the session gives: half this machine's memory; 0: none).
int64_t RamBudget(const spec::PipelineSpec& spec, int64_t machine_bytes);

}  // namespace pipescope::engine
