#pragma once
// The worker threads of an asynchronous op. Threads are started on demand (when a
// parallelism knob grows) and parked by the op itself when it shrinks; they all end when
// the op is cancelled, and JoinAll waits for them. Not thread-safe: the op calls Grow
// under its own mutex, and JoinAll from its destructor.

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "engine/work/python_work.h"
#include "instrumentation/record/recorder.h"

namespace pipescope::engine {

class WorkerThreads {
 public:
  ~WorkerThreads() { JoinAll(); }

  // Starts threads until `count` exist; thread i is named "<name>/i" in traces and runs
  // body(i).
  void Grow(int count, const std::string& name, const std::function<void(int)>& body) {
    while (static_cast<int>(threads_.size()) < count) {
      const int index = static_cast<int>(threads_.size());
      threads_.emplace_back([body, index, thread_name = name + "/" + std::to_string(index),
                             process = &CurrentPythonProcess()] {
        record::SetThreadName(thread_name);
        const PythonProcessScope in_process(*process);  // the starting thread's
        body(index);
      });
    }
  }

  int size() const { return static_cast<int>(threads_.size()); }

  void JoinAll() {
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
    threads_.clear();
  }

 private:
  std::vector<std::thread> threads_;
};

}  // namespace pipescope::engine
