#pragma once
// What a simulation records: the same events, stage and thread definitions the recorder
// gives a real run's sinks (record::TraceBatch), in virtual nanoseconds, so the trace
// model, the analysis, the views and the .pstrace writer take a simulated run as they take
// a recorded one. Batches go to the sinks every `flush_period_ns` of virtual time or when
// they are full, on a thread of their own (SinkThread), while the simulation goes on.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/sim/scheduler.h"
#include "engine/sim/sim_element.h"
#include "engine/sim/sink_thread.h"
#include "instrumentation/record/trace_sink.h"

namespace pipescope::sim {

class SimTrace {
 public:
  // No sinks: nothing is kept (a what-if simulation needs only the summary).
  explicit SimTrace(std::vector<record::TraceSink*> sinks)
      : sink_thread_(sinks.empty() ? nullptr : std::make_unique<SinkThread>(std::move(sinks))) {
    if (recording()) ReserveBatch();
  }

  bool recording() const { return sink_thread_ != nullptr; }
  SimThread& NewThread(std::string name);
  std::deque<SimThread>& threads() { return threads_; }

  void DefineStage(const record::StageDef& stage);
  void Marker(int64_t time_ns, std::string text);
  void Span(record::EventKind kind, uint16_t op, const SimThread& thread, int64_t start,
            int64_t end, uint64_t element = 0, uint64_t value = 0, uint8_t flags = 0) {
    if (recording()) Add(kind, op, thread.id, start, end, element, value, flags);
  }
  // One span for n elements (a run: record::TraceEvent::calls) with `value` their total.
  // A run names consecutive element ids; where ids jump, it is cut there, each part taking
  // its share of the span and the value.
  void Run(record::EventKind kind, uint16_t op, const SimThread& thread, int64_t start, int64_t end,
           const SimElement* elements, size_t n, uint64_t value) {
    if (recording()) AddRun(kind, op, thread.id, start, end, elements, n, value);
  }
  // A run of n consecutive ids from `first_id` (Run without the elements).
  void ConsecutiveRun(record::EventKind kind, uint16_t op, const SimThread& thread, int64_t start,
                      int64_t end, uint64_t first_id, uint32_t n, uint64_t value) {
    if (recording()) Add(kind, op, thread.id, start, end, first_id, value, 0, n);
  }
  void Counter(record::EventKind kind, uint16_t op, uint32_t thread, int64_t time, uint32_t value) {
    if (recording()) Add(kind, op, thread, time, time, 0, value, 0);
  }

  // Hands what was recorded to the sinks; with `final`, returns when they have it all.
  void Flush(int64_t time_ns, bool final);
  // A batch is handed over once full, whatever the flush period: batches of a bounded size
  // are reused whole, while a period's worth of a busy pipeline (80 k events) meant growing
  // fresh vectors, and the first touch of a page costs more than filling it on a VM. Much
  // smaller batches cost a wake-up of the sink thread each (4 Ki: imagenet_like 10% slower;
  // 64 Ki: chess_unpack 15% slower, from fresh pages).
  static constexpr size_t kFullBatch = 16384;
  // What a batch is given room for: the loop checks for a full one every millisecond of
  // virtual time, and one that outgrew its room would be copied into twice the memory.
  static constexpr size_t kBatchCapacity = kFullBatch + kFullBatch / 4;
  bool batch_full() const { return batch_.events.size() >= kFullBatch; }
  uint64_t events() const { return events_; }

 private:
  void Add(record::EventKind kind, uint16_t op, uint32_t thread, int64_t start, int64_t end,
           uint64_t element, uint64_t value, uint8_t flags, uint32_t calls = 1) {
    if (batch_.events.size() == populated_) PopulateAhead();
    batch_.events.push_back(
        record::TraceEvent{start, end, element, value, thread, op, kind, flags, calls});
    ++events_;
  }
  // Room for kBatchCapacity events. A fresh batch's pages are faulted in ahead of its
  // events (PopulateAhead); a spare handed back by the sink thread has them as far as it was
  // filled before, and a system call per batch to populate them again made the small
  // pipelines (a few events per batch) 10% slower.
  void ReserveBatch() {
    const bool fresh = batch_.events.capacity() < kBatchCapacity;
    batch_.events.reserve(kBatchCapacity);
    populated_ = fresh ? 0 : SIZE_MAX;
  }
  // Faults in the next kPopulateBytes of the batch's room at once (PopulatePagesForWrite),
  // not a page at a time as events fill it: in a busy simulation the sim thread faulted in
  // 1,200 pages for its batches, at 11 us each on a virtual machine.
  void PopulateAhead();
  void AddRun(record::EventKind kind, uint16_t op, uint32_t thread, int64_t start, int64_t end,
              const SimElement* elements, size_t n, uint64_t value);

  std::unique_ptr<SinkThread> sink_thread_;
  std::deque<SimThread> threads_;  // stable addresses: threads hold references
  static constexpr size_t kPopulateEvents = 64 * 1024 / sizeof(record::TraceEvent);
  record::TraceBatch batch_;
  size_t populated_ = 0;  // events of batch_ whose pages are in
  uint64_t events_ = 0;
};

}  // namespace pipescope::sim
