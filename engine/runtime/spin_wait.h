#pragma once
// Brief spinning before a thread sleeps on a condition variable. A hand-off between
// pipeline threads usually completes within microseconds; sleeping and being woken costs
// two futex calls and a reschedule on both sides, more than a cheap element. But a consumer
// whose producer takes milliseconds per element (a JPEG decode upstream) gains nothing from
// spinning, and on a machine with few cores the spin takes the core the producer needs
// (11.7% of imagenet_like's CPU samples on 2 cores). Each waiting point learns which of
// the two it is (AdaptiveSpin).

#include <algorithm>
#include <chrono>

namespace pipescope::engine {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// The spin budget of one waiting point, owned by the one thread that waits there. The
// budget doubles (up to kMaxIterations) after a wait that a full-budget spin would have
// ended: one that spinning ended, or one that ended, asleep, within the time kMaxIterations
// spins take. It halves (down to kMinIterations) after a longer wait. Judging a wait by
// its length rather than by whether the spin caught it keeps a quick hand-off spinning even
// while a short budget lets the wake-up latency of a sleep exceed the spin.
class AdaptiveSpin {
 public:
  static constexpr int kMaxIterations = 2000;  // about 54 us on a 2-core AMD EPYC VM
  static constexpr int kMinIterations = 16;

  // Spins until done() or the budget runs out; true when done() said so. When false, the
  // caller waits its own way and then calls WaitEnded().
  template <typename Done>
  bool SpinUntil(Done&& done) {
    // At the full budget no clock is read: a wait that outlasted a full-budget spin cannot
    // have been shorter than one, so how long it took does not matter (WaitEnded).
    const bool timed = budget_ < kMaxIterations;
    if (timed) spin_start_ = Clock::now();
    for (int i = 0; i < budget_; ++i) {
      if (done()) {
        Grow();
        return true;
      }
      CpuRelax();
    }
    if (timed) spin_end_ = Clock::now();
    return false;
  }

  // The wait that a failed SpinUntil began is over (asleep or not).
  void WaitEnded() {
    if (budget_ == kMaxIterations) {
      Shrink();
    } else {
      JudgeWait(spin_end_ - spin_start_, Clock::now() - spin_start_);
    }
  }

  // A wait that spinning the whole budget (`spun`) did not end took `waited` in all: would
  // a spin of kMaxIterations have ended it?
  template <typename Duration>
  void JudgeWait(Duration spun, Duration waited) {
    if (waited * budget_ <= spun * kMaxIterations) {
      Grow();
    } else {
      Shrink();
    }
  }

  int budget() const { return budget_; }

 private:
  using Clock = std::chrono::steady_clock;
  void Grow() { budget_ = std::min(budget_ * 2, kMaxIterations); }
  void Shrink() { budget_ = std::max(budget_ / 2, kMinIterations); }

  int budget_ = kMaxIterations;
  Clock::time_point spin_start_;
  Clock::time_point spin_end_;
};

}  // namespace pipescope::engine
