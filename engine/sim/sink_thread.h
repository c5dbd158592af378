#pragma once
// Hands a simulation's trace batches to its sinks on a thread of its own, as a real run's
// collector thread does: building the trace model (appending to its columns, faulting in
// their memory) costs about as much as simulating, so on two cores or more the two overlap
// and a simulation with a trace takes about half the time. Batches reach the sinks whole,
// in order, the last with `final`; at most a few wait at a time, so a slow sink holds the
// simulation back instead of filling memory.

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "instrumentation/record/trace_sink.h"

namespace pipescope::sim {

class SinkThread {
 public:
  explicit SinkThread(std::vector<record::TraceSink*> sinks);
  ~SinkThread();  // delivers what was handed over, then joins
  SinkThread(const SinkThread&) = delete;
  SinkThread& operator=(const SinkThread&) = delete;

  // Takes the batch's contents for delivery and leaves `batch` empty (with the capacity of
  // an earlier batch, so a steady run allocates nothing). With `final`, returns once every
  // sink has consumed everything.
  void Hand(record::TraceBatch& batch, bool final);

 private:
  void Deliver();

  static constexpr size_t kMaxWaiting = 4;
  const std::vector<record::TraceSink*> sinks_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::pair<record::TraceBatch, bool>> waiting_;  // guarded by mu_
  std::vector<record::TraceBatch> spare_;                    // guarded by mu_
  bool delivering_ = false;                                  // guarded by mu_
  bool stopping_ = false;                                    // guarded by mu_
  std::thread thread_;
};

}  // namespace pipescope::sim
