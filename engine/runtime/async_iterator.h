#pragma once
// Base of the iterators that own worker threads (parallel map, parallel interleave): the
// one mutex, the condition variables of workers and consumer, the cancelled flag and the
// threads. Derived destructors must call StopAndJoin() first, so that no worker still runs
// while the derived members it uses are destroyed.

#include <condition_variable>
#include <mutex>

#include "engine/runtime/iterator.h"
#include "engine/runtime/worker_threads.h"

namespace pipescope::engine {

class AsyncIterator : public UnaryIterator {
 public:
  using UnaryIterator::UnaryIterator;

  // Wakes every waiting thread, then cancels the input. Thread-safe.
  void Cancel() override {
    {
      std::lock_guard lock(mu_);
      cancelled_ = true;
    }
    worker_cv_.notify_all();
    consumer_cv_.notify_all();
    UnaryIterator::Cancel();
  }

 protected:
  void StopAndJoin() {
    Cancel();
    workers_.JoinAll();
  }

  std::mutex mu_;
  std::condition_variable worker_cv_;
  std::condition_variable consumer_cv_;
  bool cancelled_ = false;  // guarded by mu_
  WorkerThreads workers_;
};

}  // namespace pipescope::engine
