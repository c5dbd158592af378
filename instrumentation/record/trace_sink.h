#pragma once
// What the collector hands on: events with nanosecond times relative to the start of the
// recording, the metadata that gives them names, and the drop count. Sinks are the live
// trace model and the trace file writer; both run on the collector thread.

#include <cstdint>
#include <string>
#include <vector>

#include "instrumentation/record/event.h"

namespace pipescope::record {

struct TraceEvent {
  int64_t start_ns;  // since the recording started
  int64_t end_ns;
  uint64_t element;
  uint64_t value;   // kCall: self ns; counters: the reading
  uint32_t thread;  // ThreadDef::id of the thread that recorded it
  uint16_t op;
  EventKind kind;
  uint8_t flags;
  // > 1: a run, one event for that many calls (kCall) or function applications (kWork)
  // back to back on the thread, on the elements element .. element + calls - 1; value is
  // their total. The simulator records calls too cheap to be worth an event each this way.
  uint32_t calls = 1;
};

// What an op is, for the analyses that must know (lineage, the verdict, calibration, the
// GUI): bits of StageDef::traits. The builders set them from the op kind's description
// (engine/runtime/stage_traits.h), so an analysis asks what a stage does, never what its
// kind is called, and a new kind is read right by code that has never heard of it.
enum StageTrait : uint32_t {
  kTraitSource = 1u << 0,     // makes elements without an input (storage, values)
  kTraitBatches = 1u << 1,    // each element is a batch of its input's elements
  kTraitUnbatches = 1u << 2,  // each element is a row of one of its input's elements
  kTraitReplays = 1u << 3,    // after one complete pass, hands out what it kept (cache)
  // What the op's threads do when it runs asynchronously (StageDef::asynchronous says
  // whether it does): run the op's function on elements (map's num_parallel_calls), read
  // the datasets opened per element (interleave's), or fill a buffer from one producer
  // thread (prefetch).
  kTraitParallelFunction = 1u << 4,
  kTraitParallelReads = 1u << 5,
  kTraitOneProducer = 1u << 6,
  // Hands out its input's elements pass after pass, each pass over a new iterator of its
  // input (repeat): where its input ends a pass, every op above it starts a new one.
  kTraitRepeats = 1u << 7,
  // Its function runs Python that holds the process's interpreter lock (the GIL) for some
  // of its time: its workers take turns under the lock with every other such stage.
  kTraitHoldsInterpreterLock = 1u << 8,
  // Its workers are processes, each with its own interpreter lock, started per epoch
  // unless kept (a DataLoader's num_workers); their start-ups are kWork spans flagged
  // kFlagStartUp.
  kTraitWorkerProcesses = 1u << 9,
  // Each element is its input's paired with one of a second pipeline's (zip): the second
  // pipeline's stages follow it, one level deeper, and its last stage's call returns the
  // partner inside the op's own call.
  kTraitZips = 1u << 10,
  // Its workers fetch elements ahead by index (Keras's enqueuer, knob `workers`): threads
  // of the main process (then it holds the interpreter lock too, where its function runs
  // Python) or worker processes (use_multiprocessing), whose start-ups are kWork spans
  // flagged kFlagStartUp.
  kTraitEnqueuerWorkers = 1u << 11,
  // Its function takes one element at a time (tf.io.decode_jpeg takes one image's bytes):
  // it cannot run on a batch, so vectorising it is no remedy.
  kTraitOneElementFunction = 1u << 12,
  // What it gives depends on random draws (a shuffle, an augmentation): a cache after it
  // replays the first epoch's draws.
  kTraitRandom = 1u << 13,
  // Its function blocks beside its CPU (io_wait, or a `wait`: storage, a database, a sleep):
  // little of a core while busy is its waiting, not a busy machine, and more workers than
  // cores still help it.
  kTraitWaits = 1u << 14,
  // Its items come from an IterableDataset's __iter__, not from __getitem__ by index: what
  // the user would make cheaper is __iter__'s work per item.
  kTraitIterableDataset = 1u << 15,
  // Hands on whichever element is ready first, not in its input's order (deterministic=False,
  // a DataLoader's in_order=False): a remedy that asks for that order is already in place.
  kTraitFirstReady = 1u << 16,
  // Its workers are threads that take turns at its function whole: a Python generator's
  // next() under Keras's threads, which runs one call at a time (Keras 2.0 to 2.2 hold a lock
  // around it; tf.keras asks for a thread-safe generator, a lock around it). More of them
  // make no more elements at once.
  kTraitOneCallAtATime = 1u << 17,
  // Hands out its input's elements in an order it draws from a buffer it fills first (a
  // shuffle, reshuffling each epoch or not): until the buffer is full it gives nothing.
  kTraitDrawsOrderFromBuffer = 1u << 18,
};

// An op of the pipeline. Sent again when it changes (a rebuild reorders ops).
struct StageDef {
  uint16_t id = 0;
  std::string name;
  std::string kind;  // "map", "prefetch", ...
  int depth = 0;     // 1: inside an interleave's sub-pipeline
  int position = 0;  // index in the pipeline order of the current build
  int input = -1;    // id of the op it pulls from; -1 for a source
  bool asynchronous = false;
  int64_t parallelism = 1;
  int64_t buffer_size = 0;
  uint32_t traits = 0;  // StageTrait bits
  bool Has(StageTrait t) const { return (traits & t) != 0; }
};

struct ThreadDef {
  uint32_t id = 0;
  std::string name;
};

struct KnobChangeDef {
  int64_t time_ns = 0;
  uint16_t op = 0;
  std::string knob;
  int64_t from = 0;
  int64_t to = 0;
  std::string who;
};

struct MarkerDef {  // an instant worth a line on the timeline (a rebuild, ...)
  int64_t time_ns = 0;
  std::string text;
};

// A note a person pinned to a time (start == end) or a range of a trace, to explain it
// to whoever opens it next. Added in the GUI, saved with the trace.
struct AnnotationDef {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string text;
  std::string author;
};

struct TraceBatch {
  std::vector<StageDef> stages;
  std::vector<ThreadDef> threads;
  std::vector<KnobChangeDef> knob_changes;
  std::vector<MarkerDef> markers;
  std::vector<AnnotationDef> annotations;
  std::vector<TraceEvent> events;  // in drain order: per thread in time order
  uint64_t dropped_total = 0;      // events lost since the recording started
  int64_t time_ns = 0;             // when this batch was drained

  bool empty() const {
    return stages.empty() && threads.empty() && knob_changes.empty() && markers.empty() &&
           annotations.empty() && events.empty();
  }
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // Called on the collector thread, batches in order; `final` on the last one.
  virtual void Consume(const TraceBatch& batch, bool final) = 0;
};

}  // namespace pipescope::record
