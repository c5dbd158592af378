#pragma once
// What every iterator of one op shares (across repeat epochs and interleave
// sub-pipelines): its identity in traces, its buffer level, and its capacity knobs.
// Timings are not kept here: they are events in the trace (instrumentation/record), and
// the analysis derives busy / waiting / blocked fractions from them.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "engine/runtime/tunable.h"
#include "instrumentation/record/recorder.h"

namespace pipescope::engine {

struct StageStats {
  StageStats(uint16_t stage_id, std::string op_name, std::string op_kind)
      : id(stage_id), name(std::move(op_name)), kind(std::move(op_kind)) {}

  const uint16_t id;  // the op's id in traces (record::Event::op)
  const std::string name;
  const std::string kind;
  std::atomic<int64_t> buffered{0};  // elements held in the op's buffer now

  // Sets the buffer level. While recording, an asynchronous op's level that changed is
  // recorded, at most once per record::kLevelMinIntervalNs; the collector records one left
  // out as it wakes (RecordLevelIfChanged). Any thread: two racing ones at worst both record.
  // Only asynchronous ops' levels are traced, as in the simulator (sim/simulator.cc).
  void SetBuffered(int64_t level, record::Recorder* recorder) {
    buffered.store(level, std::memory_order_relaxed);
    if (recorder == nullptr || !asynchronous ||
        level == recorded_level_.load(std::memory_order_relaxed)) {
      return;
    }
    const uint64_t now = record::Ticks();
    if (now - level_recorded_at_.load(std::memory_order_relaxed) <
        recorder->level_interval_ticks()) {
      return;
    }
    RecordLevel(level, now, *recorder);
  }
  // The collector's part: records the level if it is not the last one recorded.
  void RecordLevelIfChanged(record::Recorder& recorder) {
    const int64_t level = buffered.load(std::memory_order_relaxed);
    if (level != recorded_level_.load(std::memory_order_relaxed)) {
      RecordLevel(level, record::Ticks(), recorder);
    }
  }
  // Payload bytes of one of the op's recent output elements (ops with a buffer, sampled
  // every 64th element while recording): what one slot of its buffer holds.
  std::atomic<int64_t> element_bytes{0};

  // The knobs that describe capacity, for reports (null when the op has none).
  const Tunable* parallelism = nullptr;
  const Tunable* buffer_size = nullptr;
  bool asynchronous = false;
  uint32_t traits = 0;  // record::StageTrait bits, set by the builder (stage_traits.h)

 private:
  void RecordLevel(int64_t level, uint64_t now, record::Recorder& recorder) {
    recorded_level_.store(level, std::memory_order_relaxed);
    level_recorded_at_.store(now, std::memory_order_relaxed);
    recorder.RecordCounterAt(
        record::EventKind::kBufferLevel, id,
        record::SaturateU32(static_cast<uint64_t>(std::max<int64_t>(0, level))), now);
  }
  std::atomic<int64_t> recorded_level_{-1};  // none yet
  std::atomic<uint64_t> level_recorded_at_{0};
};

}  // namespace pipescope::engine
