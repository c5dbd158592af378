#pragma once
// What a trace says about a time range: per-op figures, the consumer's input wait, the
// device's busy share, which op caused the waiting (gap attribution) and the bottleneck
// verdict. Everything the CLI's summary and the GUI's Statistics and Verdict docks show.

#include <cstdint>
#include <string>
#include <vector>

#include "instrumentation/trace/device_gaps.h"
#include "instrumentation/trace/model.h"
#include "instrumentation/trace/wait_pattern.h"

namespace pipescope::trace {

struct StageFigures {
  uint16_t id = 0;
  std::string name;
  std::string op;
  uint32_t traits = 0;  // record::StageTrait bits: what the op does
  int depth = 0;
  bool asynchronous = false;
  // An asynchronous op's knob, time-averaged over the range; a synchronous op's calls that
  // run at once (ConcurrentCallThreads: an interleave's per-file reads).
  double parallelism = 1;
  double buffer_size = 0;  // time-averaged over the range
  int64_t elements = 0;    // produced in the range
  double elements_per_s = 0;
  double self_ns_per_element = 0;  // the op's own work per element
  // Shares of the op's thread capacity (its workers when asynchronous, else the threads
  // that called it) spent in each state.
  double busy_fraction = 0;
  double waiting_input_fraction = 0;
  double blocked_output_fraction = 0;
  double idle_fraction = 0;
  double mean_buffer_level = 0;  // elements, asynchronous ops
  double buffer_fill = 0;        // mean level / capacity
  // Share of all the consumer's input wait in the range that this op caused.
  double caused_wait_share = 0;
  // CPU its threads got while working for it, per unit of that time (1: a core whenever
  // it worked; -1: not sampled), and the cores that makes over the range (cpu_share.h).
  double cpu_share = -1;
  double cpu_cores = 0;
  int worker_threads = 0;  // threads that worked for it and were sampled
  // Its worker processes' start-ups in the range (a DataLoader's each epoch unless
  // persistent_workers): how many, and their time in all.
  int startups = 0;
  int64_t startup_ns = 0;
  int64_t startup_covered_ns = 0;  // the time at least one was starting (OpActivity's)
  // The share of its work its threads spent waiting for their process's interpreter lock
  // (measured: kLockWait spans), 0 where none waited.
  double lock_wait_fraction = 0;
  // The share of the range the main process spent receiving what its worker processes sent
  // (kReceive: unpickling batches, on its caller's thread or a receiver's own), and that time
  // per element.
  double receive_fraction = 0;
  double receive_ns_per_element = 0;
};

struct Verdict {
  std::string grade;       // "highly input-bound", "moderately input-bound", "not input-bound"
  std::string bottleneck;  // op name ("" when none)
  std::string evidence;    // the numbers that convict it
  std::string suggestion;  // the change most likely to help
  // The suggestion is a change of knobs or order (which the advisor tries in the
  // simulator and replaces), not work outside the spec (Python under the lock, less work
  // per element, more cores).
  bool suggests_change = false;
  std::string text;  // one paragraph for people
};

struct RangeAnalysis {
  int64_t t0 = 0;
  int64_t t1 = 0;
  double duration_s = 0;
  // AnalyzeSteady: the run's time before its first step (threads and worker processes
  // starting, files opening, buffers filling), left out of every figure here.
  int64_t startup_ns = 0;
  // AnalyzeSteady: the whole epochs [t0, t1) was cut to (epoch_window.h), the steps of the
  // epoch under way at either end left out; 0 where it was not cut.
  int64_t whole_epochs = 0;
  int64_t steps = 0;
  double steps_per_s = 0;
  // The 95% interval of steps_per_s from how the steps' times vary (rate_interval.h): two
  // rates closer than their intervals allow are a tie.
  double steps_per_s_half_width = 0;
  int64_t elements = 0;  // rows reaching the consumer (batch rows when it gets batches)
  double elements_per_s = 0;
  double input_wait_fraction = 0;  // the consumer waits for input and no step is on the device
  double device_busy_fraction = 0;
  std::string device_busy_source;  // "cupti" (GPU activity), "steps" (step spans) or ""
  // The spec's disk's busy share (record::EventKind::kStorageBusy), -1 where the trace has
  // no disk.
  double storage_busy_fraction = -1;
  uint64_t dropped_events = 0;
  // The trace is the simulator's: its machine runs the pipeline's threads and nothing else.
  bool simulated = false;
  DeviceGapSummary device_gaps;  // total_ns is the range less device busy
  // The CPU the training loop's thread used over the range, as a share of it (its own work,
  // and the calls of the pipeline it makes itself); -1 where its thread was not sampled.
  // Beside the host between steps it tells the loop working from the loop asleep on the
  // device.
  double consumer_cpu_share = -1;
  WaitPattern waits;                 // how the consumer's waits fall over its steps
  std::vector<StageFigures> stages;  // pipeline order
  Verdict verdict;
};

// Analyses [t0, t1) (clamped to the trace); t1 <= t0 means the whole trace.
RangeAnalysis Analyze(const Model& model, int64_t t0 = 0, int64_t t1 = 0);

// When the run's first step started: the device's first step, or without step spans (an
// imported trace) the end of the consumer's first wait that got an element; -1: none did.
int64_t FirstStepNs(const Model& model);

// A run as it goes once started: [first step, end), with the time before it as startup_ns
// (the whole trace when no step happened), cut to whole epochs where two or more end in it
// (epoch_window.h). What `run`, `simulate` and `report` grade, so that a short run's start-up
// does not read as input wait, nor a window ending mid-epoch as the pipeline's rate.
RangeAnalysis AnalyzeSteady(const Model& model);

// [t0, t1) cut to the whole epochs in it (epoch_window.h) and analysed, with whole_epochs
// set and, over two or more, the rate's interval from the epochs' rates (PeriodsInterval);
// Analyze(t0, t1) where fewer than one epoch lies whole in it. `epoch_ends`: EpochEndsNs(model).
RangeAnalysis AnalyzeWholeEpochs(const Model& model, const std::vector<int64_t>& epoch_ends,
                                 int64_t t0, int64_t t1);

// The steady part of a run from `from` (its first step, or 0): from a quarter of what follows
// to the end, so that neither buffers filling nor workers starting count, cut to whole
// epochs where two or more end there, or else where two or more end after `from`. What the
// tuners and the advisor grade a candidate on, simulated or recorded.
RangeAnalysis AnalyzeSteadyPart(const Model& model, int64_t from);

// Device time in [t0, t1) covered by GPU activity (kernels, copies, sets); -1 when the
// trace has none.
int64_t GpuBusyNs(const Model& model, int64_t t0, int64_t t1);

// The figures of one op over a range (without caused_wait_share).
StageFigures FiguresOf(const Model& model, const record::StageDef& stage, int64_t t0, int64_t t1);

}  // namespace pipescope::trace
