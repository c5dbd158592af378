#pragma once
// The simulator's clock and CPU. Simulated threads are coroutines (Task<void>) that wait
// on three things, each an awaitable of this file:
//   - Sleep(ns): time passes without using a core (storage latency, the device's step);
//   - Compute(thread, ns): `ns` of CPU work, run on the machine's cores under processor
//     sharing: with n runnable threads on c cores each progresses at min(1, c/n), slowed a
//     little more per doubling of the threads beyond the cores (the cost of time-slicing);
//   - Notifier::Wait(): until another thread notifies (a condition variable).
// Virtual time only moves when every thread waits, so a run is exactly reproducible.

#include <algorithm>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <queue>
#include <string>
#include <vector>

#include "engine/sim/task.h"

namespace pipescope::sim {

// A simulated thread: its trace id and name, and the CPU it has used.
struct SimThread {
  uint32_t id = 0;
  std::string name;
  int64_t cpu_ns = 0;  // its CPU work asked, a job's whole as it starts
  // The scheduler's service level at which its CPU job under way ends: what of cpu_ns is not
  // done yet (Scheduler::CpuUsedNs).
  double job_ends_at_service = 0;
  // The Python process it runs in (0: the main one), whose interpreter lock its Python
  // work holds.
  int process = 0;
};

class Scheduler {
 public:
  // `cores` > 0; `oversubscription_cost`: the extra slowdown per doubling of the runnable
  // threads beyond the cores (0.02: 2% at twice the cores, 4% at four times).
  Scheduler(double cores, double oversubscription_cost);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  int64_t now() const { return now_; }
  // The CPU `thread` has used by now: its jobs' whole, less what its job under way has still
  // to do, so that a long job's CPU is counted as it goes, not all as it starts.
  int64_t CpuUsedNs(const SimThread& thread) const;
  // Starts a top-level thread at the current time. The scheduler keeps it until it ends.
  void Spawn(Task<void> task);
  // Runs until virtual time reaches `until_ns` or nothing is left to run; true while some
  // thread still waits on time or CPU (the simulation could go on).
  bool RunUntil(int64_t until_ns);
  // Destroys every thread's frames (they may be suspended anywhere); the destructor does too.
  void EndThreads();
  // Threads waiting on the CPU right now.
  int runnable() const { return static_cast<int>(cpu_jobs_.size()); }

  void Resume(std::coroutine_handle<> h) { Wake(now_, h); }  // later, at the current time
  void Wake(int64_t at_ns, std::coroutine_handle<> h);

  struct SleepAwaiter {
    Scheduler& s;
    int64_t ns;
    bool await_ready() const noexcept { return ns <= 0; }
    void await_suspend(std::coroutine_handle<> h) { s.Wake(s.now_ + ns, h); }
    void await_resume() const noexcept {}
  };
  SleepAwaiter Sleep(int64_t ns) { return {*this, ns}; }

  // `ns` of CPU, then `sleep_ns` blocked (an op's work and its wait, in one suspension).
  struct ComputeAwaiter {
    Scheduler& s;
    SimThread& thread;
    int64_t ns;
    int64_t sleep_ns;
    bool await_ready() const noexcept { return ns <= 0 && sleep_ns <= 0; }
    // False (the thread goes on at once) when the work is done before anything else happens.
    bool await_suspend(std::coroutine_handle<> h) {
      if (ns > 0) return s.StartCompute(thread, ns, sleep_ns, h);
      s.Wake(s.now_ + sleep_ns, h);
      return true;
    }
    void await_resume() const noexcept {}
  };
  ComputeAwaiter Compute(SimThread& thread, int64_t ns, int64_t then_sleep_ns = 0) {
    return {*this, thread, ns, then_sleep_ns};
  }

 private:
  struct Timer {
    int64_t at;
    uint64_t seq;
    std::coroutine_handle<> h;
    bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct CpuJob {
    double finish_service;  // the per-thread service level at which it is done
    uint64_t seq;
    int64_t sleep_after;  // then blocked this long before resuming
    std::coroutine_handle<> h;
    bool operator>(const CpuJob& o) const {
      return finish_service != o.finish_service ? finish_service > o.finish_service : seq > o.seq;
    }
  };

  // Queues the job, or, when it would be the next thing the run loop does and the only job
  // finishing then, completes it at once (see FinishAtOnce); true when `h` must suspend.
  bool StartCompute(SimThread& thread, int64_t ns, int64_t sleep_after, std::coroutine_handle<> h);
  bool FinishAtOnce(const CpuJob& job);
  // Recomputes the rate after threads start or finish computing.
  void RunnableChanged();
  // The service per ns of each of n runnable threads, and its inverse: computed once per n
  // (two divisions for every job that starts or ends were a tenth of the scheduler's time).
  struct Rate {
    double per_ns = 1;
    double ns_per_service = 1;
  };
  const Rate& RateFor(size_t n) { return n < rates_.size() ? rates_[n] : AddRatesUpTo(n); }
  const Rate& AddRatesUpTo(size_t n);
  void AdvanceService(int64_t to_ns);
  // When a job with `left` service to go finishes, at the rate whose inverse is ns_per_service.
  int64_t FinishTime(double left, double ns_per_service) const;
  int64_t NextCpuFinish() const;

  const double cores_;
  const double oversubscription_cost_;
  int64_t now_ = 0;
  int64_t until_ = 0;  // where the current RunUntil stops
  uint64_t seq_ = 0;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  // Wake-ups at the current time (most are: a notified waiter resumes now), in the order
  // they were asked for; a queue is cheaper than the heap and keeps the same order.
  struct Ready {
    uint64_t seq;
    std::coroutine_handle<> h;
  };
  std::vector<Ready> ready_;  // [ready_head_, end) are waiting; emptied when all are taken
  size_t ready_head_ = 0;
  std::priority_queue<CpuJob, std::vector<CpuJob>, std::greater<>> cpu_jobs_;
  std::vector<Rate> rates_;  // RateFor's, by n
  Rate rate_;                // each runnable thread's, RateFor(cpu_jobs_.size())
  double service_ = 0;       // service each runnable thread has received since time 0
  int64_t service_at_ = 0;
  std::vector<Task<void>> threads_;
  std::vector<CpuJob> done_;  // CPU jobs finishing together
  size_t done_left_ = 0;      // of done_, those still to be resumed
};

// A condition variable for simulated threads: Wait() suspends until the next NotifyAll.
// Callers re-check their condition in a loop, as with a real one.
class Notifier {
 public:
  explicit Notifier(Scheduler& s) : s_(s) {}
  struct Awaiter {
    Notifier& n;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) { n.waiters_.push_back(h); }
    void await_resume() const noexcept {}
  };
  Awaiter Wait() { return {*this}; }
  void NotifyAll() {
    for (auto h : waiters_) s_.Resume(h);
    waiters_.clear();
  }
  // The first `n` waiters, in the order they waited: where one change makes work for one
  // of many (an interleave's entry to read for its 64 workers), waking all of them to look
  // and find nothing cost more than the simulation itself.
  void NotifyFirst(size_t n) {
    n = std::min(n, waiters_.size());
    for (size_t i = 0; i < n; ++i) s_.Resume(waiters_[i]);
    waiters_.erase(waiters_.begin(), waiters_.begin() + static_cast<std::ptrdiff_t>(n));
  }

 private:
  Scheduler& s_;
  std::vector<std::coroutine_handle<>> waiters_;
};

}  // namespace pipescope::sim
