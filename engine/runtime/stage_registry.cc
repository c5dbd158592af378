#include "engine/runtime/stage_registry.h"

#include <algorithm>

#include "instrumentation/record/trace_sink.h"

namespace pipescope::engine {

std::shared_ptr<StageStats> StageRegistry::Stage(const std::string& name, const std::string& kind,
                                                 int depth) {
  std::lock_guard lock(mu_);
  auto& info = all_[name];
  if (!info.stats || info.stats->kind != kind) {
    info.stats = std::make_shared<StageStats>(next_id_++, name, kind);
    info.knobs.clear();
  }
  info.depth = depth;
  if (std::find(order_.begin(), order_.end(), name) == order_.end()) order_.push_back(name);
  return info.stats;
}

std::shared_ptr<Tunable> StageRegistry::Knob(const std::string& op, const std::string& knob,
                                             int64_t initial, int64_t min, int64_t max,
                                             bool autotune) {
  std::lock_guard lock(mu_);
  auto& slot = all_[op].knobs[knob];
  if (!slot) {
    slot = std::make_shared<Tunable>(op, knob, initial, min, max, autotune);
    if (observer_) slot->SetChangeObserver(observer_);
  }
  return slot;
}

void StageRegistry::BeginBuild() {
  std::lock_guard lock(mu_);
  order_.clear();
}

std::vector<StageInfo> StageRegistry::Stages() const {
  std::lock_guard lock(mu_);
  std::vector<StageInfo> out;
  for (const auto& name : order_) out.push_back(all_.at(name));
  return out;
}

std::shared_ptr<Tunable> StageRegistry::FindKnob(const std::string& op,
                                                 const std::string& knob) const {
  std::lock_guard lock(mu_);
  if (std::find(order_.begin(), order_.end(), op) == order_.end()) return nullptr;
  auto it = all_.find(op);
  if (it == all_.end()) return nullptr;
  auto k = it->second.knobs.find(knob);
  return k == it->second.knobs.end() ? nullptr : k->second;
}

void StageRegistry::SetChangeObserver(std::function<void(const KnobChange&)> observer) {
  std::lock_guard lock(mu_);
  observer_ = std::move(observer);
  for (auto& [name, info] : all_) {
    for (auto& [k, t] : info.knobs) t->SetChangeObserver(observer_);
  }
}

std::vector<int> StageInputIndices(const std::vector<int>& depths,
                                   const std::vector<uint32_t>& traits) {
  std::vector<int> inputs(depths.size(), -1);
  for (size_t i = 0; i < depths.size(); ++i) {
    size_t j = i + 1;
    while (j < depths.size() && depths[j] > depths[i]) ++j;
    const bool zips = i < traits.size() && (traits[i] & record::kTraitZips) != 0;
    if (j > i + 1 && !zips) {
      inputs[i] = static_cast<int>(j - 1);  // the sub-pipeline's last op
      continue;
    }
    for (size_t k = i; k-- > 0;) {
      if (depths[k] < depths[i]) break;
      if (depths[k] == depths[i]) {
        inputs[i] = static_cast<int>(k);
        break;
      }
    }
  }
  return inputs;
}

}  // namespace pipescope::engine
