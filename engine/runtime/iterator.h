#pragma once
// The pull model of tf.data: a Dataset is an immutable description of one op, and an
// Iterator is one pass over it. The public GetNext is a non-virtual wrapper that keeps
// the op's counters and checks the end-of-sequence contract before calling the op's own
// GetNextInternal (as tf.data's DatasetBaseIterator does).
//
// Threading contract: GetNext is called by one thread at a time. Cancel may be called
// from any thread at any time, also while GetNext runs; after it, blocked calls return
// CANCELLED promptly. Destructors cancel, then join their threads.

#include <atomic>
#include <cstdint>
#include <memory>

#include "engine/core/element.h"
#include "engine/core/status.h"
#include "engine/runtime/cancellation.h"
#include "engine/runtime/stage_stats.h"
#include "instrumentation/record/recorder.h"

namespace pipescope::engine {

// State shared by every iterator of one running pipeline. Owned by the Pipeline, which
// outlives all of its iterators.
// A pipeline has one context per build: a reorder cancels the old build's token, which also
// wakes work functions sleeping in it, without touching the new build.
struct PipelineContext {
  CancellationToken cancellation;
  // Shared by all builds of a pipeline, so element ids stay unique across reorders.
  std::shared_ptr<std::atomic<uint64_t>> element_ids = std::make_shared<std::atomic<uint64_t>>(1);
  record::Recorder* recorder = nullptr;  // null: nothing is recorded
  int cpu_cores = 1;                     // the CPU budget: AUTOTUNE knobs start from it

  uint64_t NewElementId() { return element_ids->fetch_add(1, std::memory_order_relaxed); }
};

class Iterator {
 public:
  Iterator(PipelineContext& ctx, StageStats* stats) : ctx_(ctx), stats_(stats) {}
  virtual ~Iterator() = default;
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;

  // Produces the next element, or sets `end_of_sequence`. Once the end was reported,
  // every later call reports it again.
  Status GetNext(Element& out, bool& end_of_sequence) {
    end_of_sequence = false;
    if (ended_) {
      end_of_sequence = true;
      return Status::Ok();
    }
    record::Recorder* const recorder = ctx_.recorder;
    if (recorder == nullptr || stats_ == nullptr) {
      Status s = GetNextInternal(out, end_of_sequence);
      ended_ = end_of_sequence && s.ok();
      return s;
    }
    if (is_source_) {
      // Most calls of a source in a run skip the clock: that path is a few compares, kept
      // here; the timed one, with the run's bookkeeping, is a call away. One function for
      // both paid the timed path's frame on every call: 63-69 instructions added per record
      // against 28-36 (scripts/bench-instructions).
      if (recorder->SourceCallUntimed(this)) [[likely]] {
        tls_chain_start = 0;  // a source makes no calls of its own
        Status s = GetNextInternal(out, end_of_sequence);
        last_call_ticks_ =
            recorder->EndUntimedSourceCall(stats_->id, out.id, CallFlags(s, end_of_sequence));
        ended_ = end_of_sequence && s.ok();
        return s;
      }
      return GetNextOfSourceTimed(*recorder, out, end_of_sequence);
    }
    // One kCall event per call: its span, and (for a synchronous op) the part of it spent
    // outside its input, which is the op's own work.
    //
    // The clock is read once for the start of a chain of calls: a synchronous op pulls from
    // its input first thing, so the first call it makes starts when its own did, and takes
    // that reading instead of its own (the op's few instructions before the pull land in
    // its input's span). A read costs about 11 ns on a VM; a chain of six ops saves five.
    uint64_t t0 = tls_chain_start;
    if (t0 == 0) t0 = record::Ticks();
    tls_chain_start = stats_->asynchronous ? 0 : t0;
    input_ticks_in_call_ = 0;
    Status s = GetNextInternal(out, end_of_sequence);
    tls_chain_start = 0;  // consumed by the first pull, or stale: never the next call's
    const uint64_t t1 = record::Ticks();
    last_call_ticks_ = t1 - t0;
    const uint8_t flags = CallFlags(s, end_of_sequence);
    // A source's calls in a run count an estimate of their own time (call_runs.h): where it
    // ran over, the op's own time is none rather than negative.
    const uint64_t self = stats_->asynchronous || input_ticks_in_call_ > last_call_ticks_
                              ? 0
                              : last_call_ticks_ - input_ticks_in_call_;
    // Calls that produced no element have their own kind, so that counting kCall events
    // counts elements.
    uint8_t event_flags = flags;
    const uint32_t self_value = record::EncodeSelf(self, event_flags);
    recorder->Record(record::Event{
        t0, t1, flags == 0 ? out.id : 0, self_value, stats_->id,
        flags == 0 ? record::EventKind::kCall : record::EventKind::kCallEnd, event_flags});
    ended_ = end_of_sequence && s.ok();
    const bool buffers = stats_->asynchronous || stats_->buffer_size != nullptr;
    if (flags == 0 && buffers && (calls_++ & 63) == 0) {
      stats_->element_bytes.store(static_cast<int64_t>(out.ByteSize()), std::memory_order_relaxed);
    }
    return s;
  }

  // Stops this iterator and everything upstream of it. Thread-safe, idempotent.
  virtual void Cancel() = 0;

  uint64_t calls_ = 0;  // elements produced while recording (samples their size)
  // Ticks of the last GetNext call, valid while recording.
  uint64_t last_call_ticks() const { return last_call_ticks_; }

 protected:
  virtual Status GetNextInternal(Element& out, bool& end_of_sequence) = 0;

  // For synchronous ops: pulls from `input` and counts the time as waiting for input.
  Status GetNextFromInput(Iterator& input, Element& out, bool& end_of_sequence) {
    Status s = input.GetNext(out, end_of_sequence);
    input_ticks_in_call_ += input.last_call_ticks();
    return s;
  }

  // For the worker threads of asynchronous ops: Ticks() while recording, else 0.
  uint64_t TicksIfRecording() const { return ctx_.recorder ? record::Ticks() : 0; }
  // Records a span of this op on the calling thread; a no-op when not recording.
  void RecordSpan(record::EventKind kind, uint64_t start, uint64_t end,
                  uint64_t element = 0) const {
    if (ctx_.recorder) ctx_.recorder->RecordSpan(kind, stats_->id, start, end, element);
  }

  // The op's buffer now holds `level` elements (recorded when it changed).
  void SetBufferLevel(int64_t level) const { stats_->SetBuffered(level, ctx_.recorder); }

  bool cancelled() const { return ctx_.cancellation.cancelled(); }

  PipelineContext& ctx_;
  StageStats* const stats_;

 private:
  friend class SourceIterator;
  Iterator(PipelineContext& ctx, StageStats* stats, bool is_source)
      : ctx_(ctx), stats_(stats), is_source_(is_source) {}

  // A source's timed call, while recording: cheap ones back to back become runs, and most
  // calls of a run skip the clock (instrumentation/record/call_runs.h).
  [[gnu::noinline]] Status GetNextOfSourceTimed(record::Recorder& recorder, Element& out,
                                                bool& end_of_sequence) {
    const uint64_t chain_start = tls_chain_start;
    tls_chain_start = 0;
    const uint64_t t0 = chain_start != 0 ? chain_start : record::Ticks();
    Status s = GetNextInternal(out, end_of_sequence);
    const uint64_t t1 = record::Ticks();
    last_call_ticks_ =
        recorder.RecordSourceCall(this, stats_->id, t0, t1, out.id, CallFlags(s, end_of_sequence));
    ended_ = end_of_sequence && s.ok();
    return s;
  }

  static uint8_t CallFlags(const Status& s, bool end_of_sequence) {
    return !s.ok() ? record::kFlagError : end_of_sequence ? record::kFlagEndOfSequence : 0;
  }

  // The start of the call in progress on this thread, for the first call it makes (0: none).
  static inline thread_local uint64_t tls_chain_start = 0;

  // The conformance suite calls GetNextInternal past the end, where GetNext would answer
  // from `ended_` without asking the op.
  friend struct IteratorTestPeer;
  const bool is_source_ = false;
  bool ended_ = false;
  uint64_t last_call_ticks_ = 0;
  uint64_t input_ticks_in_call_ = 0;
};

// An iterator with no input: it makes its elements itself (range, a file's records, ...).
class SourceIterator : public Iterator {
 public:
  SourceIterator(PipelineContext& ctx, StageStats* stats) : Iterator(ctx, stats, true) {}
};

// An iterator with exactly one input that it owns and pulls from on the caller's thread.
class UnaryIterator : public Iterator {
 public:
  UnaryIterator(PipelineContext& ctx, StageStats* stats, std::unique_ptr<Iterator> input)
      : Iterator(ctx, stats), input_(std::move(input)) {}
  void Cancel() override { input_->Cancel(); }

 protected:
  Status Pull(Element& out, bool& end) { return GetNextFromInput(*input_, out, end); }
  std::unique_ptr<Iterator> input_;
};

// What MakeIterator gets: the pipeline's context and, inside an interleave's
// sub-pipeline, the input element the sub-pipeline was opened for.
struct IteratorArgs {
  PipelineContext* ctx = nullptr;
  const Element* parent = nullptr;
};

class Dataset {
 public:
  explicit Dataset(std::shared_ptr<StageStats> stats) : stats_(std::move(stats)) {}
  virtual ~Dataset() = default;
  virtual Result<std::unique_ptr<Iterator>> MakeIterator(const IteratorArgs& args) const = 0;
  StageStats* stats() const { return stats_.get(); }

 protected:
  std::shared_ptr<StageStats> stats_;
};

using DatasetPtr = std::shared_ptr<const Dataset>;

// A Dataset with one input. MakeIteratorOver builds the input's iterator first, then an
// IteratorT(ctx, stats, input_iterator, dataset).
class UnaryDataset : public Dataset {
 public:
  UnaryDataset(std::shared_ptr<StageStats> stats, DatasetPtr input)
      : Dataset(std::move(stats)), input_(std::move(input)) {}

 protected:
  template <typename IteratorT, typename DatasetT>
  static Result<std::unique_ptr<Iterator>> MakeIteratorOver(const DatasetT& dataset,
                                                            const IteratorArgs& args) {
    ASSIGN_OR_RETURN(auto in, dataset.input_->MakeIterator(args));
    return std::unique_ptr<Iterator>(
        std::make_unique<IteratorT>(*args.ctx, dataset.stats(), std::move(in), dataset));
  }

  DatasetPtr input_;
};

}  // namespace pipescope::engine
