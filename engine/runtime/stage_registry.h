#pragma once
// The stages (ops) of a pipeline and their knobs, by name. Survives rebuilds: when ops are
// reordered, an op that still exists keeps its counters and its knobs' current values.
// Thread-safe.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/runtime/stage_stats.h"
#include "engine/runtime/tunable.h"

namespace pipescope::engine {

struct StageInfo {
  std::shared_ptr<StageStats> stats;
  std::map<std::string, std::shared_ptr<Tunable>> knobs;  // knob name → tunable
  int depth = 0;  // 0: top level; 1: inside an interleave's sub-pipeline
};

// For stages listed in pipeline order with their depths and traits (an interleave followed
// by its sub-pipeline one level deeper), the index of the stage each pulls from, -1 for a
// source: the previous stage at its depth, or for an interleave the last stage of its
// sub-pipeline. A zip (record::kTraitZips) pulls the previous stage at its depth; the second
// pipeline after it is its second input, which the trace finds by its place.
std::vector<int> StageInputIndices(const std::vector<int>& depths,
                                   const std::vector<uint32_t>& traits);

class StageRegistry {
 public:
  // Finds or creates the stage named `name`; the kind is updated if it changed.
  std::shared_ptr<StageStats> Stage(const std::string& name, const std::string& kind, int depth);

  // Finds or creates a knob. `initial` is used only when it is created; AUTOTUNE knobs
  // (autotune = true) start from `initial` too, which the builder chooses.
  std::shared_ptr<Tunable> Knob(const std::string& op, const std::string& knob, int64_t initial,
                                int64_t min, int64_t max, bool autotune);

  // Stages of the current build, in pipeline order (call BeginBuild before a rebuild).
  void BeginBuild();
  std::vector<StageInfo> Stages() const;
  std::shared_ptr<Tunable> FindKnob(const std::string& op, const std::string& knob) const;

  void SetChangeObserver(std::function<void(const KnobChange&)> observer);

 private:
  mutable std::mutex mu_;
  std::map<std::string, StageInfo> all_;
  std::vector<std::string> order_;  // names in the current build
  uint16_t next_id_ = 0;            // trace ids are never reused within a pipeline
  std::function<void(const KnobChange&)> observer_;
};

}  // namespace pipescope::engine
