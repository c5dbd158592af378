#include "engine/sim/scheduler.h"

#include <algorithm>
#include <cmath>

namespace pipescope::sim {

Scheduler::Scheduler(double cores, double oversubscription_cost)
    : cores_(std::max(cores, 0.01)), oversubscription_cost_(std::max(0.0, oversubscription_cost)) {}

Scheduler::~Scheduler() { EndThreads(); }

void Scheduler::EndThreads() {
  // Handles in the queues point into the threads' frames: forget them, then destroy the
  // frames (each Task destroys the chain of frames it is suspended in).
  timers_ = {};
  ready_.clear();
  ready_head_ = 0;
  cpu_jobs_ = {};
  RunnableChanged();
  threads_.clear();
}

void Scheduler::Spawn(Task<void> task) {
  Resume(task.handle());
  threads_.push_back(std::move(task));
}

void Scheduler::Wake(int64_t at_ns, std::coroutine_handle<> h) {
  if (at_ns <= now_) {
    ready_.push_back(Ready{seq_++, h});
  } else {
    timers_.push(Timer{at_ns, seq_++, h});
  }
}

const Scheduler::Rate& Scheduler::AddRatesUpTo(size_t runnable) {
  while (rates_.size() <= runnable) {
    const auto n = static_cast<double>(rates_.size());
    Rate r;
    // Past the cores, time-slicing costs a little per doubling of the threads, not per
    // thread: the kernel's slices stay milliseconds long however many threads share a core
    // (the engine's 200 us map lost 10% going from 2 to 128 threads on 2 cores).
    r.per_ns =
        n <= cores_ ? 1.0 : cores_ / n / (1.0 + oversubscription_cost_ * std::log2(n / cores_));
    r.ns_per_service = 1.0 / r.per_ns;
    rates_.push_back(r);
  }
  return rates_[runnable];
}

void Scheduler::RunnableChanged() { rate_ = RateFor(cpu_jobs_.size()); }

void Scheduler::AdvanceService(int64_t to_ns) {
  if (!cpu_jobs_.empty()) service_ += static_cast<double>(to_ns - service_at_) * rate_.per_ns;
  service_at_ = to_ns;
}

int64_t Scheduler::FinishTime(double left, double ns_per_service) const {
  // Rounded up, without a call to ceil (this runs once per event of the simulation).
  const double ns = std::max(0.0, left) * ns_per_service;
  auto whole = static_cast<int64_t>(ns);
  if (static_cast<double>(whole) < ns) ++whole;
  return service_at_ + whole;
}

int64_t Scheduler::CpuUsedNs(const SimThread& thread) const {
  const double service =
      service_ + (cpu_jobs_.empty() ? 0.0 : static_cast<double>(now_ - service_at_) * rate_.per_ns);
  const double left = std::max(0.0, thread.job_ends_at_service - service);
  return thread.cpu_ns - static_cast<int64_t>(left);
}

int64_t Scheduler::NextCpuFinish() const {
  if (cpu_jobs_.empty()) return INT64_MAX;
  return FinishTime(cpu_jobs_.top().finish_service - service_, rate_.ns_per_service);
}

bool Scheduler::StartCompute(SimThread& thread, int64_t ns, int64_t sleep_after,
                             std::coroutine_handle<> h) {
  AdvanceService(now_);
  thread.cpu_ns += ns;
  const CpuJob job{service_ + static_cast<double>(ns), seq_++, sleep_after, h};
  thread.job_ends_at_service = job.finish_service;
  if (FinishAtOnce(job)) {
    if (job.sleep_after <= 0) return false;
    Wake(now_ + job.sleep_after, h);
    return true;
  }
  cpu_jobs_.push(job);
  RunnableChanged();
  return true;
}

// Most jobs are short hand-offs and cheap functions that end before anything else happens
// (another thread's job, a timer, a wake-up due now). Run through the loop, such a job
// costs a heap push and pop and a suspension; here it ends at once, with exactly the same
// arithmetic as RunUntil's (the same finish time and service level, the same order of
// sequence numbers), so a simulation gives the same trace either way.
bool Scheduler::FinishAtOnce(const CpuJob& job) {
  // Threads due now run first.
  if (ready_head_ < ready_.size() || done_left_ > 0) return false;
  const Rate& rate = RateFor(cpu_jobs_.size() + 1);
  const int64_t finish = FinishTime(job.finish_service - service_, rate.ns_per_service);
  if (finish >= until_) return false;                               // the loop stops first
  if (!timers_.empty() && timers_.top().at < finish) return false;  // a tie goes to the CPU
  const double service_then = service_ + static_cast<double>(finish - service_at_) * rate.per_ns;
  // The loop would finish another job with it (or before it).
  if (!cpu_jobs_.empty() && cpu_jobs_.top().finish_service <= service_then + 0.5) return false;
  service_ = service_then;
  service_at_ = finish;
  now_ = finish;
  return true;
}

bool Scheduler::RunUntil(int64_t until_ns) {
  until_ = until_ns;
  while (true) {
    // The next wake-up by (time, order asked): the ready queue's front is due now, but a
    // timer due now that was asked for earlier goes first.
    const bool ready_first =
        ready_head_ < ready_.size() &&
        (timers_.empty() || timers_.top().at > now_ || timers_.top().seq > ready_[ready_head_].seq);
    const int64_t next_timer =
        ready_first ? now_ : (timers_.empty() ? INT64_MAX : timers_.top().at);
    const int64_t next_cpu = NextCpuFinish();
    const int64_t next = std::min(next_timer, next_cpu);
    if (next == INT64_MAX) return false;
    if (next >= until_ns) {
      AdvanceService(until_ns);
      now_ = until_ns;
      return true;
    }
    now_ = next;
    if (next_cpu <= next_timer) {
      AdvanceService(now_);
      // Everything due by now finishes together (within half a nanosecond of service).
      std::vector<CpuJob>& done = done_;  // reused: no allocation per finish
      done.clear();
      while (!cpu_jobs_.empty() && cpu_jobs_.top().finish_service <= service_ + 0.5) {
        done.push_back(cpu_jobs_.top());
        cpu_jobs_.pop();
      }
      if (done.empty()) {  // rounding: the earliest job is due now
        done.push_back(cpu_jobs_.top());
        cpu_jobs_.pop();
      }
      RunnableChanged();
      // A resumed thread only queues timers and CPU jobs (it cannot re-enter RunUntil), so
      // done_ stays as it is while it is walked; it finishes no job at once while others
      // of the batch still wait to resume at this time.
      for (size_t i = 0; i < done.size(); ++i) {
        const CpuJob& job = done[i];
        done_left_ = done.size() - 1 - i;
        if (job.sleep_after > 0) {
          Wake(now_ + job.sleep_after, job.h);
        } else {
          job.h.resume();
        }
      }
    } else if (ready_first) {
      const Ready r = ready_[ready_head_++];
      if (ready_head_ == ready_.size()) {  // all taken: start over, keeping the capacity
        ready_.clear();
        ready_head_ = 0;
      }
      r.h.resume();
    } else {
      const Timer t = timers_.top();
      timers_.pop();
      t.h.resume();
    }
  }
}

}  // namespace pipescope::sim
