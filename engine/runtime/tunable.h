#pragma once
// A knob shared by an op, the UI and the autotuner (tf.data's "model::Parameter").
// Reads are a relaxed atomic load so ops can consult it per element; writes clamp to
// [min, max], notify listeners (ops wake their waiting threads so a change takes effect
// within one element's time) and are reported to the change observer for the trace.
// Thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <string>

namespace pipescope::engine {

struct KnobChange {
  std::string op;
  std::string knob;
  int64_t from = 0;
  int64_t to = 0;
  std::string who;  // "user", "cli", "autotuner:tfdata", ...
};

class Tunable {
 public:
  using Listener = std::function<void()>;

  Tunable(std::string op, std::string knob, int64_t value, int64_t min, int64_t max, bool autotune);
  Tunable(const Tunable&) = delete;
  Tunable& operator=(const Tunable&) = delete;

  int64_t value() const { return value_.load(std::memory_order_relaxed); }
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }
  // True when the spec said AUTOTUNE: the autotuner owns it (a user may still override).
  bool autotune() const { return autotune_; }
  const std::string& op() const { return op_; }
  const std::string& knob() const { return knob_; }

  // Sets the clamped value and returns it. Listeners run on the caller's thread.
  int64_t Set(int64_t value, const std::string& who);

  // Listeners must outlive their registration; Unsubscribe before destroying them.
  using Handle = std::list<Listener>::iterator;
  Handle Subscribe(Listener listener);
  void Unsubscribe(Handle handle);

  // Called for every change (trace recording, UI refresh); set once by the pipeline.
  void SetChangeObserver(std::function<void(const KnobChange&)> observer);

 private:
  const std::string op_;
  const std::string knob_;
  std::atomic<int64_t> value_;
  const int64_t min_;
  const int64_t max_;
  const bool autotune_;
  std::mutex mu_;
  std::list<Listener> listeners_;
  std::function<void(const KnobChange&)> observer_;
};

// Subscribes for the lifetime of the object (RAII): ops hold one per knob they watch.
class TunableSubscription {
 public:
  TunableSubscription() = default;
  TunableSubscription(Tunable* tunable, Tunable::Listener listener)
      : tunable_(tunable), handle_(tunable->Subscribe(std::move(listener))) {}
  ~TunableSubscription() {
    if (tunable_) tunable_->Unsubscribe(handle_);
  }
  TunableSubscription(const TunableSubscription&) = delete;
  TunableSubscription& operator=(const TunableSubscription&) = delete;

 private:
  Tunable* tunable_ = nullptr;
  Tunable::Handle handle_;
};

}  // namespace pipescope::engine
