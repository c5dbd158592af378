#include "engine/runtime/tunable.h"

#include <algorithm>

namespace pipescope::engine {

Tunable::Tunable(std::string op, std::string knob, int64_t value, int64_t min, int64_t max,
                 bool autotune)
    : op_(std::move(op)),
      knob_(std::move(knob)),
      value_(std::clamp(value, min, max)),
      min_(min),
      max_(max),
      autotune_(autotune) {}

int64_t Tunable::Set(int64_t value, const std::string& who) {
  const int64_t clamped = std::clamp(value, min_, max_);
  std::lock_guard lock(mu_);  // serialises writers so listeners see changes in order
  const int64_t old = value_.exchange(clamped, std::memory_order_relaxed);
  if (old != clamped) {
    for (auto& listener : listeners_) listener();
    if (observer_) observer_(KnobChange{op_, knob_, old, clamped, who});
  }
  return clamped;
}

Tunable::Handle Tunable::Subscribe(Listener listener) {
  std::lock_guard lock(mu_);
  return listeners_.insert(listeners_.end(), std::move(listener));
}

void Tunable::Unsubscribe(Handle handle) {
  std::lock_guard lock(mu_);
  listeners_.erase(handle);
}

void Tunable::SetChangeObserver(std::function<void(const KnobChange&)> observer) {
  std::lock_guard lock(mu_);
  observer_ = std::move(observer);
}

}  // namespace pipescope::engine
