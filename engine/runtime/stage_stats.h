#pragma once
// Per-op counters, shared by every iterator of that op (across repeat epochs and
// interleave sub-pipelines). Written with relaxed atomics from any thread; read by
// reporters at any time. Times are nanoseconds of thread time spent in each state:
//   busy            the op's own work (its function, its bookkeeping)
//   waiting_input   inside the input's GetNext
//   blocked_output  an async op's workers waiting for room in its output buffer

#include <atomic>
#include <cstdint>
#include <string>

#include "engine/runtime/tunable.h"

namespace pipescope::engine {

struct StageStats {
  StageStats(std::string op_name, std::string op_kind)
      : name(std::move(op_name)), kind(std::move(op_kind)) {}

  const std::string name;
  const std::string kind;
  std::atomic<int64_t> elements{0};
  std::atomic<int64_t> busy_ns{0};
  std::atomic<int64_t> waiting_input_ns{0};
  std::atomic<int64_t> blocked_output_ns{0};
  std::atomic<int64_t> buffered{0};  // elements held in the op's buffer now

  // The knobs that describe capacity, for reports (null when the op has none).
  const Tunable* parallelism = nullptr;
  const Tunable* buffer_size = nullptr;
  bool asynchronous = false;

  void Add(std::atomic<int64_t>& counter, int64_t v) {
    counter.fetch_add(v, std::memory_order_relaxed);
  }
};

}  // namespace pipescope::engine
