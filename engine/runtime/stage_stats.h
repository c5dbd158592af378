#pragma once
// What every iterator of one op shares (across repeat epochs and interleave
// sub-pipelines): its identity in traces, its buffer level, and its capacity knobs.
// Timings are not kept here: they are events in the trace (instrumentation/record), and
// the analysis derives busy / waiting / blocked fractions from them.

#include <atomic>
#include <cstdint>
#include <string>

#include "engine/runtime/tunable.h"

namespace pipescope::engine {

struct StageStats {
  StageStats(uint16_t stage_id, std::string op_name, std::string op_kind)
      : id(stage_id), name(std::move(op_name)), kind(std::move(op_kind)) {}

  const uint16_t id;  // the op's id in traces (record::Event::op)
  const std::string name;
  const std::string kind;
  std::atomic<int64_t> buffered{0};  // elements held in the op's buffer now (sampled)
  // Payload bytes of one of the op's recent output elements (ops with a buffer, sampled
  // every 64th element while recording): what one slot of its buffer holds.
  std::atomic<int64_t> element_bytes{0};

  // The knobs that describe capacity, for reports (null when the op has none).
  const Tunable* parallelism = nullptr;
  const Tunable* buffer_size = nullptr;
  bool asynchronous = false;
  uint32_t traits = 0;  // record::StageTrait bits, set by the builder (stage_traits.h)
};

}  // namespace pipescope::engine
