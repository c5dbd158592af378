#pragma once
// The fixed-size record a thread appends on the hot path. Plain data, 32 bytes, two to a
// cache line; timestamps are raw Ticks() unless kFlagTimesInNs says they are NowNs().

#include <cstdint>
#include <type_traits>

namespace pipescope::record {

enum class EventKind : uint8_t {
  // Spans.
  kCall = 1,       // an op's GetNext as its caller saw it; value = self ticks (without input)
  kWork = 2,       // an async op's worker running the op's function on one element
  kWaitInput = 3,  // an async op's worker pulling from its input
  kBlocked = 4,    // an async op's worker waiting for room in its output buffer
  kIdle = 5,       // an async op's worker parked because parallelism was lowered
  kInputWait = 6,  // the consumer waiting for the pipeline's next element
  kStep = 7,       // a device step (training step), in device time
  kCallEnd = 8,    // a GetNext that returned the end of the sequence or an error (flags say)
  // GPU activity from CUPTI, in host time (op = kDeviceOp; element = CUDA correlation id;
  // value = bytes for copies and sets, saturated).
  kGpuKernel = 9,
  kGpuMemcpy = 10,
  kGpuMemset = 11,
  // Only between a thread and the collector, never in a trace: the thread's next event is
  // a run of `value` calls (call_runs.h).
  kRunCalls = 12,
  // A thread waiting for its process's interpreter lock (CPython's GIL) before running
  // Python, inside the work or call it waits for; recorded only when another thread held
  // the lock (an uncontended take reads no clock).
  kLockWait = 13,
  // The caller's thread receiving an element an op's worker process sent (the main process
  // unpickling a DataLoader's or Keras's batch), inside the op's kCall: time the training
  // loop spends on its input that no worker's time shows.
  kReceive = 14,
  // Counters (start == end; value is the reading).
  kBufferLevel = 16,  // elements held in an op's output buffer
  kCpuTime = 17,      // CPU nanoseconds a thread used since its previous sample
  kDeviceUtil = 18,   // device busy per mille over the sample window
  // The spec's disk (spec::Storage): nanoseconds its reads kept it busy since its previous
  // sample, summed over the reads it serves at once and divided by how many it may (iostat's
  // %util for a hard disk). op kNoOp; one track per trace.
  kStorageBusy = 19,
};

inline bool IsCounter(EventKind k) { return static_cast<uint8_t>(k) >= 16; }
inline bool IsGpuActivity(EventKind k) {
  return k == EventKind::kGpuKernel || k == EventKind::kGpuMemcpy || k == EventKind::kGpuMemset;
}

enum EventFlags : uint8_t {
  kFlagEndOfSequence = 1,  // a kCall that returned the end of the sequence
  kFlagError = 2,          // a kCall that returned an error
  kFlagTimesInNs = 4,      // start/end are NowNs() nanoseconds, not ticks
  // A kWork span of a worker process starting (spawn or fork, imports), on no element.
  kFlagStartUp = 8,
  // A call's self time in `value` is in units of 1024 ticks (EncodeSelf): past 2^32 ticks.
  // Only between a thread and the collector, never in a trace.
  kFlagSelfScaled = 16,
};

// The value of a DataLoader's kWaitInput span that takes no items: its batch is made of the
// same items as the previous such span's (a replicated IterableDataset's copy for another
// worker).
inline constexpr uint32_t kCopyOfThePreviousItems = 1;

// Op ids of the parts that are not ops.
inline constexpr uint16_t kConsumerOp = 0xFFFF;
inline constexpr uint16_t kDeviceOp = 0xFFFE;
inline constexpr uint16_t kNoOp = 0xFFFD;

struct Event {
  uint64_t start;
  uint64_t end;
  uint64_t element;  // the element's id; 0 when the event is not about one element
  uint32_t value;    // by kind: self ticks, counter reading, ...
  uint16_t op;       // stage id (StageDef::id) or one of the ids above
  EventKind kind;
  uint8_t flags;
};
static_assert(sizeof(Event) == 32, "two events per cache line");
static_assert(std::is_trivially_copyable_v<Event>);

// What people call each kind of event (tooltips, search, exported traces).
inline const char* KindLabel(EventKind kind) {
  switch (kind) {
    case EventKind::kCall:
      return "call";
    case EventKind::kWork:
      return "work";
    case EventKind::kWaitInput:
      return "waiting for input";
    case EventKind::kBlocked:
      return "blocked on output";
    case EventKind::kIdle:
      return "idle";
    case EventKind::kInputWait:
      return "consumer waiting for input";
    case EventKind::kLockWait:
      return "waiting for the interpreter lock";
    case EventKind::kReceive:
      return "receiving from a worker process";
    case EventKind::kStep:
      return "device step";
    case EventKind::kBufferLevel:
      return "buffer level";
    case EventKind::kCpuTime:
      return "CPU time";
    case EventKind::kDeviceUtil:
      return "device utilisation";
    case EventKind::kStorageBusy:
      return "disk busy";
    case EventKind::kGpuKernel:
      return "GPU kernel";
    case EventKind::kGpuMemcpy:
      return "GPU copy";
    case EventKind::kGpuMemset:
      return "GPU memset";
    default:
      return "event";
  }
}

inline uint32_t SaturateU32(uint64_t v) {
  return v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v);
}

// A call's self time for Event::value: as it is below 2^32 ticks, else in units of 1024
// with kFlagSelfScaled added to `flags` (a call of more than 4.3 s of its own, a batch of
// slow items, kept to a microsecond rather than cut at 4.3 s); DecodeSelf reads it back.
inline uint32_t EncodeSelf(uint64_t self, uint8_t& flags) {
  if (self <= UINT32_MAX) return static_cast<uint32_t>(self);
  flags = static_cast<uint8_t>(flags | kFlagSelfScaled);
  return SaturateU32(self >> 10);
}
inline uint64_t DecodeSelf(uint32_t value, uint8_t flags) {
  return (flags & kFlagSelfScaled) != 0 ? uint64_t{value} << 10 : value;
}

}  // namespace pipescope::record
